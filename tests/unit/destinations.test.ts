import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { checkRecipient } from '../../src/api/contract/batch';
import { BillingLimitsFormSchema, BillingLimitsSchema, limitsToForm } from '../../src/api/contract/billing';
import {
  BLOCKED_RANGES,
  CALLABLE_COUNTRIES,
  countriesOfNumbers,
  countryOfNumber,
  DESTINATION_MESSAGES,
  destinationRefusal,
} from '../../src/api/contract/destinations';

/** The destination policy's rules (src/api/contract/destinations.ts) and the limits contract around them. */
describe('destination policy', () => {
  it('refuses the numbers of the toll-fraud report, each with its reason', () => {
    const US = ['US'];
    expect(destinationRefusal('+19005550100', US)).toBe('Calls to +1900… are not allowed: premium-rate numbers are blocked.');
    expect(destinationRefusal('+882345678901', US)).toBe(
      'Calls to +882… are not allowed: international network, satellite and other non-geographic numbers are blocked.',
    );
    expect(destinationRefusal('+5351234567', US)).toBe(
      "Calls to +53… are not allowed: Cuba (CU) is not in this company's allowed countries (US).",
    );
    expect(destinationRefusal('+447012345678', US)).toBe(
      'Calls to +4470… are not allowed: UK personal numbers (070) are blocked.',
    );
    expect(destinationRefusal('+212612345678', ['US', 'GB'])).toBe(
      "Calls to +212… are not allowed: Morocco (MA) is not in this company's allowed countries (US, GB).",
    );
    expect(destinationRefusal('+999999999999999', US)).toBe(
      'Calls to +999… are not allowed: +999 is not assigned to any country.',
    );
  });

  it('blocks premium and non-geographic ranges whatever the allowed countries', () => {
    const every = [...CALLABLE_COUNTRIES];
    for (const phone of ['+19005550100', '+12129765555', '+449012345678', '+4990012345678', '+61190012345', '+883510000000'])
      expect(destinationRefusal(phone, every), phone).toMatch(/ are blocked\.$/);
    expect(destinationRefusal('+12129765555', every)).toBe(
      'Calls to +1212976… are not allowed: premium-rate numbers are blocked.',
    );
    // UK geographic and mobile numbers are not premium
    expect(destinationRefusal('+442079460958', ['GB'])).toBeNull();
    expect(destinationRefusal('+447911123456', ['GB'])).toBeNull();
    // every range is a valid prefix of an international number
    for (const r of BLOCKED_RANGES) expect(r.prefix).toMatch(/^\+[1-9]\d{2,5}$/);
  });

  it('reads the country of a number: calling codes, NANP area codes, +7', () => {
    expect(countryOfNumber('+14155550100')).toEqual({ country: 'US', prefix: '+1415' });
    expect(countryOfNumber('+14165550100')).toEqual({ country: 'CA', prefix: '+1416' });
    expect(countryOfNumber('+18765550100')).toEqual({ country: 'JM', prefix: '+1876' });
    expect(countryOfNumber('+17875550100')?.country).toBe('PR');
    expect(countryOfNumber('+18005550100')?.country).toBe('US');
    expect(countryOfNumber('+74951234567')?.country).toBe('RU');
    expect(countryOfNumber('+77011234567')?.country).toBe('KZ');
    expect(countryOfNumber('+442079460958')).toEqual({ country: 'GB', prefix: '+44' });
    expect(countryOfNumber('+35312345678')).toEqual({ country: 'IE', prefix: '+353' });
    expect(countryOfNumber('+27211234567')).toEqual({ country: 'ZA', prefix: '+27' });
    expect(countryOfNumber('+2801234567')).toBeNull();
    expect(countryOfNumber('+11005550100')).toBeNull();
    expect(destinationRefusal('+11005550100', ['US'])).toBe(
      'Calls to +1100… are not allowed: it is not a valid North American number.',
    );
    expect(countriesOfNumbers(['+442079460100', '+14155550100', '+14155550101', 'nope'])).toEqual(['GB', 'US']);
    expect(destinationRefusal('+14155550100', [])).toBe(
      'Calls to +1415… are not allowed: this company has no allowed countries yet (Billing > Limits).',
    );
  });

  it('the batch upload applies the same rules to a recipient (checkRecipient)', () => {
    expect(checkRecipient('(900) 555-0100', ['US'])).toEqual({ reason: destinationRefusal('+19005550100', ['US']) });
    expect(checkRecipient('415 555 0100', ['US'])).toEqual({ phone: '+14155550100' });
    expect(checkRecipient('', ['US'])).toEqual({ reason: 'Missing phone number' });
  });

  it('validates the allowed countries on the API and in the Limits form', () => {
    const api = (allowedCountries: unknown) =>
      v.safeParse(BillingLimitsSchema, { concurrencyLimit: 5, monthlySpendLimit: 10, allowedCountries });
    expect(api([' gb', 'US', 'GB']).output).toMatchObject({ allowedCountries: ['GB', 'US'] });
    expect(api(undefined).output).not.toHaveProperty('allowedCountries', expect.anything());
    const message = (r: ReturnType<typeof api>) => (r.success ? null : v.flatten(r.issues).nested?.allowedCountries?.[0]);
    expect(message(api(['USA']))).toBe(DESTINATION_MESSAGES.allowedCountriesFormat);
    expect(message(api(['ZZ']))).toBe(DESTINATION_MESSAGES.allowedCountryUnknown('ZZ'));
    expect(message(api('US'))).toBe(DESTINATION_MESSAGES.allowedCountriesFormat);
    expect(message(api(Array(101).fill('US')))).toBeNull(); // repeats collapse before the maximum
    expect(message(api([...CALLABLE_COUNTRIES].slice(0, 101)))).toBe(DESTINATION_MESSAGES.allowedCountriesMax);

    const form = (allowedCountries: string) =>
      v.safeParse(BillingLimitsFormSchema, { concurrencyLimit: '10', monthlySpendLimit: '5', allowedCountries });
    expect(form(' us gb;US ').output).toEqual({ concurrencyLimit: 10, monthlySpendLimit: 5, allowedCountries: ['GB', 'US'] });
    expect(form('').output).toEqual({ concurrencyLimit: 10, monthlySpendLimit: 5, allowedCountries: [] });
    const bad = form('us, zz');
    expect(bad.success ? null : v.flatten(bad.issues).nested).toEqual({
      allowedCountries: [DESTINATION_MESSAGES.allowedCountryUnknown('ZZ')],
    });
    expect(limitsToForm({ concurrencyLimit: 3, monthlySpendLimit: 7, allowedCountries: ['GB', 'US'] })).toEqual({
      concurrencyLimit: '3',
      monthlySpendLimit: '7.00',
      allowedCountries: 'GB, US',
    });
  });
});
