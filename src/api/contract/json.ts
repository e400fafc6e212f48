/**
 * JSON from outside (request bodies, form fields, imported files, answers of third parties) is parsed
 * only when it nests at most JSON_DEPTH_MAX levels. Parsing time grows with nesting: V8 spends about a
 * microsecond a level, so 2 MB of `[` would hold the thread for a second; no request, file or answer
 * Parley reads nests more than a few levels. The check is one linear pass that skips strings.
 */
export const JSON_DEPTH_MAX = 32;

export class JsonTooDeepError extends SyntaxError {
  constructor(readonly maxDepth: number) {
    super(`JSON nested more than ${maxDepth} levels deep`);
  }
}

/** True when `text` opens more than `maxDepth` arrays or objects inside one another (strings skipped). */
export function jsonNestsDeeper(text: string, maxDepth = JSON_DEPTH_MAX): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: to its closing quote, escaped characters skipped
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** JSON.parse that first refuses nesting deeper than `maxDepth` (JsonTooDeepError, a SyntaxError). */
export function parseJson(text: string, maxDepth = JSON_DEPTH_MAX): unknown {
  if (jsonNestsDeeper(text, maxDepth)) throw new JsonTooDeepError(maxDepth);
  return JSON.parse(text);
}
