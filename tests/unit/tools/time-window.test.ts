import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../../server/platform/env.js';
import { slotList, startOf, windowOf } from '../../../server/voice/tools/time-window.js';
import { TOOL_PROVIDER_URLS, toolUrlsOf, toolUrlVariables } from '../../../server/voice/tools/tool-urls.js';

describe('calendar times in a zone', () => {
  it('a wall-clock start is read in the zone, across daylight saving time; an offset wins', () => {
    expect(new Date(startOf('2026-01-09T09:00', 'America/New_York') as number).toISOString()).toBe('2026-01-09T14:00:00.000Z');
    expect(new Date(startOf('2026-03-09 09:00', 'America/New_York') as number).toISOString()).toBe('2026-03-09T13:00:00.000Z');
    expect(new Date(startOf('2026-03-09T09:00:00+01:00', 'America/New_York') as number).toISOString()).toBe(
      '2026-03-09T08:00:00.000Z',
    );
    expect(startOf('2026-13-09T09:00', 'UTC')).toBeNull();
    expect(startOf('next tuesday', 'UTC')).toBeNull();
  });

  it('a window of whole local days, the day of a DST change included', () => {
    const w = windowOf(
      { start_date: '2026-03-08', end_date: '2026-03-08' },
      'America/New_York',
      Date.parse('2026-03-01T00:00:00Z'),
      7,
    );
    expect(w).toMatchObject({ startDate: '2026-03-08', endDate: '2026-03-08' });
    if (typeof w === 'string') throw new Error(w);
    expect(new Date(w.fromMs).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(new Date(w.toMs).toISOString()).toBe('2026-03-09T04:00:00.000Z');
    // today in the zone by default
    const today = windowOf({}, 'Asia/Tokyo', Date.parse('2026-12-07T20:00:00Z'), 7);
    expect(today).toMatchObject({ startDate: '2026-12-08', endDate: '2026-12-08' });
  });

  it('the list groups local times by local date', () => {
    const w = windowOf({ start_date: '2026-12-08' }, 'Asia/Tokyo', 0, 7);
    if (typeof w === 'string') throw new Error(w);
    expect(slotList([Date.parse('2026-12-08T01:00:00Z'), Date.parse('2026-12-07T15:30:00Z')], 'Asia/Tokyo', w).free).toEqual({
      '2026-12-08': ['00:30', '10:00'],
    });
  });
});

describe('the tool providers’ base URLs', () => {
  it('CAL_API_URL, CALENDLY_API_URL and PERPLEXITY_API_URL move them; unset, each is the provider’s own', () => {
    const env = parseEnv(
      { CAL_API_URL: 'http://127.0.0.1:4010/', PERPLEXITY_API_URL: 'https://gw.example.com/pplx' },
      toolUrlVariables(),
    );
    expect(toolUrlsOf(env.apiBases)).toEqual({
      calcom: 'http://127.0.0.1:4010',
      calendly: TOOL_PROVIDER_URLS.calendly.default,
      perplexity: 'https://gw.example.com/pplx',
      whatsapp: TOOL_PROVIDER_URLS.whatsapp.default,
    });
    expect(() => parseEnv({ CALENDLY_API_URL: 'ftp://x' }, toolUrlVariables())).toThrow(/CALENDLY_API_URL/);
  });
});
