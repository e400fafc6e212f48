import { describe, expect, it } from 'vitest';
import {
  contentPolicy,
  contentWithheld,
  keptAnalysis,
  keptTranscript,
  keptVariables,
  transcriptKeeper,
} from '../../../server/platform/call-content';

const turns = [
  { role: 'user' as const, text: 'my number is 555 123 4567', start_ms: 0, end_ms: 1 },
  {
    role: 'agent' as const,
    text: 'Noted, Ada.',
    start_ms: 2,
    end_ms: 3,
    tool_calls: [{ name: 'book', arguments: { email: 'ada@example.com' }, status: 'ok' as const, result: 'Booked for Ada' }],
  },
];

describe('what a call keeps', () => {
  it('reads the level from the stored snapshot, the old switch included, and records only at everything', () => {
    expect(contentPolicy(JSON.stringify({ editor: {} }), '{}')).toMatchObject({ level: 'everything', record: true });
    expect(contentPolicy(JSON.stringify({ editor: { recordCalls: false } }), '{}').record).toBe(false);
    expect(contentPolicy(JSON.stringify({ editor: { sensitiveDataStorage: false } }), '{}')).toMatchObject({
      level: 'metadata_only',
      record: false,
    });
    expect(contentPolicy({ editor: { dataStorage: 'everything_but_pii' } }, {}).record).toBe(false);
    expect(contentPolicy('not json', 'nor this').level).toBe('everything');
  });

  it('everything_but_pii redacts turns, function arguments and results, variables and analysis', () => {
    const policy = contentPolicy({ editor: { dataStorage: 'everything_but_pii' } }, { caller_name: 'Ada' });
    const kept = keptTranscript(turns, policy);
    expect(kept[0]?.text).toBe('my number is [PHONE]');
    expect(kept[1]?.text).toBe('Noted, [NAME].');
    expect(kept[1]?.tool_calls?.[0]).toMatchObject({ arguments: { email: '[EMAIL]' }, result: 'Booked for [NAME]' });
    expect(keptVariables({ caller_name: 'Ada', note: 'call 555 123 4567' }, policy)).toEqual({
      caller_name: '[NAME]',
      note: 'call [PHONE]',
    });
    expect(keptAnalysis({ summary: 'Ada left 555 123 4567', custom: { phone: '555 123 4567', n: 2 } }, policy)).toEqual({
      summary: '[NAME] left [PHONE]',
      custom: { phone: '[PHONE]', n: 2 },
    });
    expect(contentWithheld(policy)).toBe('everything_but_pii');
  });

  it('metadata_only keeps no text at all; everything keeps it as said', () => {
    const meta = contentPolicy({ editor: { dataStorage: 'metadata_only' } }, {});
    expect(keptTranscript(turns, meta)).toEqual([]);
    expect(keptVariables({ a: 'b' }, meta)).toEqual({});
    expect(keptAnalysis({ summary: 'x', custom: {} }, meta)).toBeNull();
    const all = contentPolicy({ editor: { dataStorage: 'everything' } }, {});
    expect(keptTranscript(turns, all)).toEqual(turns);
    expect(contentWithheld(all)).toBeNull();
  });

  it('a name the caller gives is replaced in every turn, also as the transcript grows turn by turn', () => {
    const keep = transcriptKeeper(contentPolicy({ editor: { dataStorage: 'everything_but_pii' } }, {}));
    const t1 = [{ role: 'agent' as const, text: 'Is that Ruth?', start_ms: 0, end_ms: 1 }];
    expect(keep(t1).map((t) => t.text)).toEqual(['Is that Ruth?']);
    const t2 = [
      ...t1,
      { role: 'user' as const, text: 'Hi, my name is Ruth.', start_ms: 2, end_ms: 3 },
      { role: 'agent' as const, text: 'Thanks Ruth.', start_ms: 4, end_ms: 5 },
    ];
    expect(keep(t2).map((t) => t.text)).toEqual(['Is that [NAME]?', 'Hi, my name is [NAME].', 'Thanks [NAME].']);
    const t3 = [{ role: 'agent' as const, text: 'Ruth, is it?', start_ms: 0, end_ms: 1 }, t2[1]!];
    expect(keptTranscript(t3, contentPolicy({ editor: { dataStorage: 'everything_but_pii' } }, {}))[0]?.text).toBe(
      '[NAME], is it?',
    );
  });
});
