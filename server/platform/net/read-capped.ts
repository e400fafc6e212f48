/**
 * Reading an answer of a server Parley does not control (a company's webhook receiver or API, a provider)
 * with a byte limit: the body is read until `max` bytes, then the rest is dropped unread and `cut` is true.
 * An abort of `signal` cancels the read. One reader for every such answer, so none buffers without bound.
 */
export async function readCapped(res: Response, max: number, signal?: AbortSignal): Promise<{ text: string; cut: boolean }> {
  if (!res.body) return { text: '', cut: false };
  const reader = res.body.getReader();
  const onAbort = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      const { done, value } = await reader.read();
      if (done) break;
      const room = max - size;
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, room));
        size = max;
        cut = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (cut) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
  // a multi-byte character split by the cut decodes as one replacement character
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), cut };
}

/** The whole body as text, or undefined (the rest left unread) when it is longer than `max` bytes. */
export async function readWhole(res: Response, max: number, signal?: AbortSignal): Promise<string | undefined> {
  const { text, cut } = await readCapped(res, max, signal);
  return cut ? undefined : text;
}
