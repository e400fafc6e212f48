import fs from 'node:fs';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_MISSING = `Chromium not found at ${CHROMIUM_PATH}: run apt-get install -y chromium`;

/** Throws the one-line instruction when Debian's Chromium is not installed. */
export function assertChromium(): void {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    const error = new Error(CHROMIUM_MISSING);
    error.stack = CHROMIUM_MISSING;
    throw error;
  }
}
