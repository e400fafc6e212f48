// The part of autocannon 8's API the load benchmark uses (the package ships no types).
declare module 'autocannon' {
  export interface AutocannonRequest {
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** called before each send; answers the request to send (a falsy answer restarts the list) */
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest | undefined;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }
  export interface AutocannonClient {
    /** replaces this connection's request list (each connection can get its own) */
    setRequests(requests: AutocannonRequest[]): void;
    /** every answer, with the latency measured from writing its request */
    on(event: 'response', listener: (status: number, bytes: number, responseTimeMs: number) => void): void;
  }
  export interface AutocannonOptions {
    url: string;
    connections?: number;
    /** seconds */
    duration?: number;
    /** seconds */
    timeout?: number;
    pipelining?: number;
    requests?: AutocannonRequest[];
    setupClient?: (client: AutocannonClient) => void;
  }
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }
  export interface AutocannonResult {
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    mismatches: number;
    resets: number;
    duration: number;
    '2xx': number;
    '4xx': number;
    '5xx': number;
  }
  export default function autocannon(options: AutocannonOptions): Promise<AutocannonResult> & { stop(): void };
}
