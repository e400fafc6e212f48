import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { openZones } from '../../server/modules/batches/dispatcher.js';
import { NUMBER_ZONES, zoneOfNumber } from '../../server/modules/batches/number-zones.js';
import {
  BATCH_MESSAGES,
  CreateBatchBodySchema,
  insideCallingWindow,
  isTimeZone,
  localTime,
  UpdateBatchBodySchema,
} from '../../src/api/contract/batch';

/** calling window: a number's time zone, the window in a zone, and the contract's fields. */
describe('a number’s time zone', () => {
  it('single-zone countries by calling code, NANP by area code, else null (the batch’s zone)', () => {
    expect(zoneOfNumber('+442071838750')).toBe('Europe/London');
    expect(zoneOfNumber('+33142685300')).toBe('Europe/Paris');
    expect(zoneOfNumber('+35312345678')).toBe('Europe/Dublin');
    expect(zoneOfNumber('+8613912345678')).toBe('Asia/Shanghai');
    expect(zoneOfNumber('+12125550100')).toBe('America/New_York');
    expect(zoneOfNumber('+14155550100')).toBe('America/Los_Angeles');
    expect(zoneOfNumber('+13125550100')).toBe('America/Chicago');
    expect(zoneOfNumber('+13035550100')).toBe('America/Denver');
    expect(zoneOfNumber('+16025550100')).toBe('America/Phoenix');
    expect(zoneOfNumber('+14165550100')).toBe('America/Toronto');
    expect(zoneOfNumber('+19025550100')).toBe('America/Halifax');
    expect(zoneOfNumber('+18085550100')).toBe('Pacific/Honolulu');
    // several zones (Russia, Australia, Brazil), an area code not listed, not E.164
    expect(zoneOfNumber('+74951234567')).toBeNull();
    expect(zoneOfNumber('+61212345678')).toBeNull();
    expect(zoneOfNumber('+5511912345678')).toBeNull();
    expect(zoneOfNumber('+18005550100')).toBeNull();
    expect(zoneOfNumber('442071838750')).toBeNull();
  });

  it('every zone of the tables is one Intl knows', () => {
    expect(NUMBER_ZONES.length).toBeGreaterThan(60);
    expect(NUMBER_ZONES.filter((z) => !isTimeZone(z))).toEqual([]);
  });
});

describe('the calling window', () => {
  const weekdays9to5 = { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' };

  it('reads the local day and minute in the zone, daylight saving time included', () => {
    // Monday 23 Nov 2026 14:30 UTC: 09:30 in New York (EST), 06:30 in Los Angeles, 14:30 in London
    const at = new Date('2026-11-23T14:30:00Z');
    expect(localTime('America/New_York', at)).toEqual({ day: 1, minute: 9 * 60 + 30 });
    expect(localTime('America/Los_Angeles', at)).toEqual({ day: 1, minute: 6 * 60 + 30 });
    // July: New York is UTC-4
    expect(localTime('America/New_York', new Date('2026-07-06T13:30:00Z'))).toEqual({ day: 1, minute: 9 * 60 + 30 });
    // Tokyo is already Tuesday
    expect(localTime('Asia/Tokyo', new Date('2026-11-23T20:00:00Z'))).toEqual({ day: 2, minute: 5 * 60 });
  });

  it('starts inclusive, ends exclusive, only on its days; no window is always open', () => {
    const ny = 'America/New_York';
    expect(insideCallingWindow(weekdays9to5, ny, new Date('2026-11-23T13:59:59Z'))).toBe(false);
    expect(insideCallingWindow(weekdays9to5, ny, new Date('2026-11-23T14:00:00Z'))).toBe(true);
    expect(insideCallingWindow(weekdays9to5, ny, new Date('2026-11-23T21:59:00Z'))).toBe(true);
    expect(insideCallingWindow(weekdays9to5, ny, new Date('2026-11-23T22:00:00Z'))).toBe(false);
    // Saturday 28 Nov at noon
    expect(insideCallingWindow(weekdays9to5, ny, new Date('2026-11-28T17:00:00Z'))).toBe(false);
    expect(insideCallingWindow(null, ny, new Date('2026-11-28T17:00:00Z'))).toBe(true);
    expect(insideCallingWindow({ days: [6], start: '00:00', end: '24:00' }, ny, new Date('2026-11-29T04:59:00Z'))).toBe(true);
  });

  it('the dispatcher’s open zones: the numbers’ zones inside the window, and the batch’s own', () => {
    const at = new Date('2026-11-23T14:30:00Z');
    const open = openZones(weekdays9to5, 'Asia/Tokyo', at);
    expect(open?.zones).toContain('America/New_York');
    expect(open?.zones).toContain('Europe/London');
    expect(open?.zones).not.toContain('America/Los_Angeles');
    expect(open?.batchZone).toBe(false);
    expect(openZones(null, 'UTC', at)).toBeNull();
    // a stored zone Intl does not know reads as UTC (14:30 on a Monday: open)
    expect(openZones(weekdays9to5, 'Nowhere/Gone', at)?.batchZone).toBe(true);
  });
});

describe('the batch contract’s dialling rules', () => {
  const base = { name: 'Reminders', fromNumber: '+14155550100', sendMode: 'now' };
  const issues = (schema: v.GenericSchema, input: unknown) => {
    const r = v.safeParse(schema, input);
    return r.success ? [] : r.issues.map((i) => i.message);
  };

  it('accepts a window, a zone, attempts and a delay, and sorts the days', () => {
    const r = v.parse(CreateBatchBodySchema, {
      ...base,
      callingWindow: { days: [5, 1, 3, 1], start: '09:00', end: '17:30' },
      timeZone: 'Europe/London',
      maxAttempts: 3,
      retryDelaySeconds: 300,
    });
    expect(r.callingWindow).toEqual({ days: [1, 3, 5], start: '09:00', end: '17:30' });
    expect([r.timeZone, r.maxAttempts, r.retryDelaySeconds]).toEqual(['Europe/London', 3, 300]);
    expect(v.parse(UpdateBatchBodySchema, { callingWindow: null }).callingWindow).toBeNull();
  });

  it('refuses what is not a window, an unknown zone, attempts outside 1–5 and delays outside 30–86,400 s', () => {
    expect(issues(CreateBatchBodySchema, { ...base, callingWindow: { days: [], start: '09:00', end: '17:00' } })).toEqual([
      BATCH_MESSAGES.callingWindowDays,
    ]);
    expect(issues(CreateBatchBodySchema, { ...base, callingWindow: { days: [7], start: '09:00', end: '17:00' } })).toHaveLength(
      1,
    );
    expect(issues(CreateBatchBodySchema, { ...base, callingWindow: { days: [1], start: '9am', end: '17:00' } })).toEqual([
      BATCH_MESSAGES.callingWindowTime,
    ]);
    expect(issues(CreateBatchBodySchema, { ...base, callingWindow: { days: [1], start: '17:00', end: '09:00' } })).toEqual([
      BATCH_MESSAGES.callingWindowOrder,
    ]);
    expect(issues(CreateBatchBodySchema, { ...base, timeZone: 'Mars/Olympus' })).toEqual([BATCH_MESSAGES.timeZone]);
    expect(issues(CreateBatchBodySchema, { ...base, timeZone: '+01:00' })).toEqual([BATCH_MESSAGES.timeZone]);
    for (const n of [0, 6, 1.5]) expect(issues(UpdateBatchBodySchema, { maxAttempts: n })).toEqual([BATCH_MESSAGES.maxAttempts]);
    for (const n of [29, 86_401, 60.5])
      expect(issues(UpdateBatchBodySchema, { retryDelaySeconds: n })).toEqual([BATCH_MESSAGES.retryDelay]);
    expect(issues(UpdateBatchBodySchema, { maxAttempts: 1, retryDelaySeconds: 30 })).toEqual([]);
    expect(issues(UpdateBatchBodySchema, { maxAttempts: 5, retryDelaySeconds: 86_400 })).toEqual([]);
  });
});
