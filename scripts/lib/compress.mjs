// The two encodings the server sends (server/platform/http/static.ts): brotli at its best quality where the browser
// accepts it, else gzip -9. The build writes them beside each text file; the bundle report measures both.
import zlib from 'node:zlib';

export const gzip = (buf) => zlib.gzipSync(buf, { level: 9 });

export const brotli = (buf) =>
  zlib.brotliCompressSync(buf, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length },
  });
