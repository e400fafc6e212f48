/**
 * The carriers Parley speaks to, by id. The telephony module builds its webhook routes and stream routes
 * from this registry (server/modules/telephony/{telephony.routes,stream.routes}.ts) and runs every call
 * through the Carrier interface (types.ts): adding a carrier is its folder and one line below (the recipe is
 * in docs/telephony.md).
 */
import { plivo } from './plivo/index.js';
import { twilio } from './twilio/index.js';
import type { Carrier } from './types.js';

export class CarrierRegistry {
  private readonly byId = new Map<string, Carrier>();

  constructor(carriers: readonly Carrier[] = []) {
    for (const c of carriers) this.register(c);
  }

  /** Adds `carrier`; answers a function that takes it out again (tests). */
  register<A>(carrier: Carrier<A>): () => void {
    if (!/^[a-z][a-z0-9-]{1,30}$/.test(carrier.id)) throw new Error(`carrier id ${carrier.id} is not a path segment`);
    if (this.byId.has(carrier.id)) throw new Error(`carrier ${carrier.id} is registered already`);
    this.byId.set(carrier.id, carrier as Carrier);
    return () => {
      if (this.byId.get(carrier.id) === carrier) this.byId.delete(carrier.id);
    };
  }

  get(id: string): Carrier | undefined {
    return this.byId.get(id);
  }

  all(): Carrier[] {
    return [...this.byId.values()];
  }

  ids(): string[] {
    return [...this.byId.keys()];
  }
}

/** The server's carriers. */
export const carriers = new CarrierRegistry([twilio, plivo]);
