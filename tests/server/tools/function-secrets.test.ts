import { describe, expect, it } from 'vitest';
import { maskAgent, sealFunctionHeaders } from '../../../server/modules/agents/function-secrets.js';
import { openHeaders } from '../../../server/voice/tools/custom/headers.js';
import { SECRET_MASK } from '../../../src/api/contract/agent/functions.js';
import type { Agent } from '../../../src/api/contract/agent/responses.js';
import type { AgentDoc } from '../../../src/api/contract/agent/save.js';
import { COMPANY, fnOf, toolDeps } from './tool-env.js';

const deps = toolDeps();
const docWith = (functions: unknown[]) => ({ editor: { functions } }) as unknown as AgentDoc;
const fnHeaders = (doc: AgentDoc, i = 0) => (doc.editor.functions![i] as { headers: { name: string; value: string }[] }).headers;
const open = (doc: AgentDoc, i = 0) => openHeaders(deps.secrets.masterKey, COMPANY, fnHeaders(doc, i));

const custom = (id: number, name: string, headers: { name: string; value: string }[]) =>
  fnOf({ type: 'custom', id, name, url: 'https://api.example.com/x', headers });

describe('function header secrets', () => {
  const stored = sealFunctionHeaders(
    deps,
    COMPANY,
    docWith([
      custom(1, 'a', [
        { name: 'Authorization', value: 'Bearer one' },
        { name: 'X-Key', value: 'k1' },
      ]),
    ]),
  );

  it('seals new values (nothing readable stored) and opens them for the tool', () => {
    expect(JSON.stringify(stored)).not.toContain('Bearer one');
    expect(open(stored)).toEqual({ authorization: 'Bearer one', 'x-key': 'k1' });
  });

  it('a mask keeps the stored value: by function id, then header name, else position', () => {
    const renamedFn = custom(1, 'renamed', [
      { name: 'X-Key', value: SECRET_MASK },
      { name: 'Authorization', value: SECRET_MASK },
    ]);
    expect(open(sealFunctionHeaders(deps, COMPANY, docWith([renamedFn]), stored))).toEqual({
      'x-key': 'k1',
      authorization: 'Bearer one',
    });
    const renamedHeader = custom(1, 'a', [{ name: 'Authorisation', value: SECRET_MASK }]);
    expect(open(sealFunctionHeaders(deps, COMPANY, docWith([renamedHeader]), stored))).toEqual({ authorisation: 'Bearer one' });
  });

  it('a mask of another function (another id and name) or with nothing stored becomes empty', () => {
    const other = custom(7, 'b', [{ name: 'Authorization', value: SECRET_MASK }]);
    expect(fnHeaders(sealFunctionHeaders(deps, COMPANY, docWith([other]), stored))).toEqual([
      { name: 'Authorization', value: '' },
    ]);
    expect(fnHeaders(sealFunctionHeaders(deps, COMPANY, docWith([other])))).toEqual([{ name: 'Authorization', value: '' }]);
  });

  it('answers every stored value as the mask, an empty one as empty', () => {
    const doc = sealFunctionHeaders(
      deps,
      COMPANY,
      docWith([
        custom(1, 'a', [
          { name: 'A', value: 'x' },
          { name: 'B', value: '' },
        ]),
      ]),
    );
    const agent = maskAgent({ editor: doc.editor } as Agent);
    expect(fnHeaders(agent as unknown as AgentDoc)).toEqual([
      { name: 'A', value: SECRET_MASK },
      { name: 'B', value: '' },
    ]);
  });
});
