/**
 * `1000000` -> `'1,000,000'`, as `toLocaleString('en-US')` writes an integer. Written out because the
 * first locale-aware call in a page loads the browser's locale data (about 50 ms on the main thread),
 * and these messages are built when the contract module loads, on every page.
 */
export const groupThousands = (n: number): string =>
  Math.trunc(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
