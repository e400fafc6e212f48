/** A JSON text column read back (a transcript, usage, an agent snapshot): `fallback` when it does not parse. */
export const parseJson = <T>(text: string, fallback: T): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};
