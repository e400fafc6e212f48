/**
 * Where outbound calls may go (toll fraud): the one set of rules `POST /call/create` (and so the batch
 * dispatcher and Call me) and the batch recipients upload apply. Imported by the client and the server.
 *
 * A number (E.164) is refused, in this order, when:
 * 1. it is in a blocked range: premium-rate, personal-number, shared-cost or non-geographic international
 *    numbers (BLOCKED_RANGES), whatever the company allows;
 * 2. its calling code belongs to no country (unassigned, like +999), or it is not a valid North American
 *    number (+1 needs an area code and exchange starting 2-9);
 * 3. its country is not one of the company's allowed countries (ISO 3166 alpha-2, Billing > Limits; when
 *    none are set, the countries of the company's own phone numbers).
 *
 * Sources:
 * - ITU-T E.164 assigned country codes: "List of ITU-T Recommendation E.164 assigned country codes"
 *   (annex to the ITU Operational Bulletin, www.itu.int/pub/T-SP-E.164D): the country codes below, the
 *   shared codes for international networks (+882, +883), Global Mobile Satellite Systems (+881), Inmarsat
 *   (+870), Universal International Freephone / Shared Cost numbers (+800, +808), UPT (+878), OCHA (+888),
 *   International Premium Rate Service (+979) and the ITPCS trial code (+991); codes not listed are spare.
 * - North American Numbering Plan Administrator (nationalnanpa.com): NPA 900 (premium services), the 976
 *   information-services exchange, 8YY toll-free codes, and the area codes of Canada and of the Caribbean
 *   and Pacific members and US territories.
 * - Ofcom, "National Telephone Numbering Plan": 070 personal numbering (+44 70) and 09 premium rate
 *   services (+44 9).
 * - Bundesnetzagentur numbering plan (0900 premium-rate, 0137 mass-traffic services); ARCEP (08 9x
 *   premium-rate, "numéros à valeur ajoutée"); ACMA Numbering Plan (19 premium services); AGCOM (899
 *   premium services); CNMC/Spain's numbering plan (803, 806, 807 and 905 premium and mass-calling).
 */

/** A refused prefix and why. */
export interface BlockedRange {
  prefix: string;
  reason: string;
}

const PREMIUM = 'premium-rate numbers are blocked';
const NON_GEOGRAPHIC = 'international network, satellite and other non-geographic numbers are blocked';

/** Ranges refused whatever the company allows (NANP's 976 exchange is a rule of its own: nanpRefusal). */
export const BLOCKED_RANGES: readonly BlockedRange[] = [
  { prefix: '+1900', reason: PREMIUM },
  { prefix: '+4470', reason: 'UK personal numbers (070) are blocked' },
  { prefix: '+449', reason: PREMIUM },
  { prefix: '+49900', reason: PREMIUM },
  { prefix: '+49137', reason: 'mass-calling numbers are blocked' },
  { prefix: '+3389', reason: PREMIUM },
  { prefix: '+61190', reason: PREMIUM },
  { prefix: '+39899', reason: PREMIUM },
  { prefix: '+34803', reason: PREMIUM },
  { prefix: '+34806', reason: PREMIUM },
  { prefix: '+34807', reason: PREMIUM },
  { prefix: '+34905', reason: 'mass-calling numbers are blocked' },
  { prefix: '+979', reason: PREMIUM },
  ...['+800', '+808', '+870', '+878', '+881', '+882', '+883', '+888', '+991'].map((prefix) => ({
    prefix,
    reason: NON_GEOGRAPHIC,
  })),
];

/** Calling codes of countries (ITU-T E.164), each with its country (the main one where several share it). */
const CODE_COUNTRY: Record<string, string> = {
  '20': 'EG',
  '211': 'SS',
  '212': 'MA',
  '213': 'DZ',
  '216': 'TN',
  '218': 'LY',
  '220': 'GM',
  '221': 'SN',
  '222': 'MR',
  '223': 'ML',
  '224': 'GN',
  '225': 'CI',
  '226': 'BF',
  '227': 'NE',
  '228': 'TG',
  '229': 'BJ',
  '230': 'MU',
  '231': 'LR',
  '232': 'SL',
  '233': 'GH',
  '234': 'NG',
  '235': 'TD',
  '236': 'CF',
  '237': 'CM',
  '238': 'CV',
  '239': 'ST',
  '240': 'GQ',
  '241': 'GA',
  '242': 'CG',
  '243': 'CD',
  '244': 'AO',
  '245': 'GW',
  '246': 'IO',
  '247': 'AC',
  '248': 'SC',
  '249': 'SD',
  '250': 'RW',
  '251': 'ET',
  '252': 'SO',
  '253': 'DJ',
  '254': 'KE',
  '255': 'TZ',
  '256': 'UG',
  '257': 'BI',
  '258': 'MZ',
  '260': 'ZM',
  '261': 'MG',
  '262': 'RE',
  '263': 'ZW',
  '264': 'NA',
  '265': 'MW',
  '266': 'LS',
  '267': 'BW',
  '268': 'SZ',
  '269': 'KM',
  '27': 'ZA',
  '290': 'SH',
  '291': 'ER',
  '297': 'AW',
  '298': 'FO',
  '299': 'GL',
  '30': 'GR',
  '31': 'NL',
  '32': 'BE',
  '33': 'FR',
  '34': 'ES',
  '350': 'GI',
  '351': 'PT',
  '352': 'LU',
  '353': 'IE',
  '354': 'IS',
  '355': 'AL',
  '356': 'MT',
  '357': 'CY',
  '358': 'FI',
  '359': 'BG',
  '36': 'HU',
  '370': 'LT',
  '371': 'LV',
  '372': 'EE',
  '373': 'MD',
  '374': 'AM',
  '375': 'BY',
  '376': 'AD',
  '377': 'MC',
  '378': 'SM',
  '379': 'VA',
  '380': 'UA',
  '381': 'RS',
  '382': 'ME',
  '383': 'XK',
  '385': 'HR',
  '386': 'SI',
  '387': 'BA',
  '389': 'MK',
  '39': 'IT',
  '40': 'RO',
  '41': 'CH',
  '420': 'CZ',
  '421': 'SK',
  '423': 'LI',
  '43': 'AT',
  '44': 'GB',
  '45': 'DK',
  '46': 'SE',
  '47': 'NO',
  '48': 'PL',
  '49': 'DE',
  '500': 'FK',
  '501': 'BZ',
  '502': 'GT',
  '503': 'SV',
  '504': 'HN',
  '505': 'NI',
  '506': 'CR',
  '507': 'PA',
  '508': 'PM',
  '509': 'HT',
  '51': 'PE',
  '52': 'MX',
  '53': 'CU',
  '54': 'AR',
  '55': 'BR',
  '56': 'CL',
  '57': 'CO',
  '58': 'VE',
  '590': 'GP',
  '591': 'BO',
  '592': 'GY',
  '593': 'EC',
  '594': 'GF',
  '595': 'PY',
  '596': 'MQ',
  '597': 'SR',
  '598': 'UY',
  '599': 'CW',
  '60': 'MY',
  '61': 'AU',
  '62': 'ID',
  '63': 'PH',
  '64': 'NZ',
  '65': 'SG',
  '66': 'TH',
  '670': 'TL',
  '672': 'NF',
  '673': 'BN',
  '674': 'NR',
  '675': 'PG',
  '676': 'TO',
  '677': 'SB',
  '678': 'VU',
  '679': 'FJ',
  '680': 'PW',
  '681': 'WF',
  '682': 'CK',
  '683': 'NU',
  '685': 'WS',
  '686': 'KI',
  '687': 'NC',
  '688': 'TV',
  '689': 'PF',
  '690': 'TK',
  '691': 'FM',
  '692': 'MH',
  '81': 'JP',
  '82': 'KR',
  '84': 'VN',
  '850': 'KP',
  '852': 'HK',
  '853': 'MO',
  '855': 'KH',
  '856': 'LA',
  '86': 'CN',
  '880': 'BD',
  '886': 'TW',
  '90': 'TR',
  '91': 'IN',
  '92': 'PK',
  '93': 'AF',
  '94': 'LK',
  '95': 'MM',
  '960': 'MV',
  '961': 'LB',
  '962': 'JO',
  '963': 'SY',
  '964': 'IQ',
  '965': 'KW',
  '966': 'SA',
  '967': 'YE',
  '968': 'OM',
  '970': 'PS',
  '971': 'AE',
  '972': 'IL',
  '973': 'BH',
  '974': 'QA',
  '975': 'BT',
  '976': 'MN',
  '977': 'NP',
  '98': 'IR',
  '992': 'TJ',
  '993': 'TM',
  '994': 'AZ',
  '995': 'GE',
  '996': 'KG',
  '998': 'UZ',
};

/** +1 area codes outside the United States (the rest of the plan's geographic and toll-free codes are US). */
const NANP_AREA_COUNTRY: Record<string, string> = {
  ...Object.fromEntries(
    [
      204, 226, 236, 249, 250, 263, 289, 306, 343, 354, 365, 367, 368, 382, 403, 416, 418, 428, 431, 437, 438, 450, 468, 474, 506,
      514, 519, 548, 579, 581, 584, 587, 600, 604, 613, 639, 647, 672, 683, 705, 709, 742, 753, 778, 780, 782, 807, 819, 825, 867,
      873, 879, 902, 905,
    ].map((a) => [String(a), 'CA']),
  ),
  '242': 'BS',
  '246': 'BB',
  '264': 'AI',
  '268': 'AG',
  '284': 'VG',
  '340': 'VI',
  '345': 'KY',
  '441': 'BM',
  '473': 'GD',
  '649': 'TC',
  '658': 'JM',
  '664': 'MS',
  '670': 'MP',
  '671': 'GU',
  '684': 'AS',
  '721': 'SX',
  '758': 'LC',
  '767': 'DM',
  '784': 'VC',
  '787': 'PR',
  '809': 'DO',
  '829': 'DO',
  '849': 'DO',
  '868': 'TT',
  '869': 'KN',
  '876': 'JM',
  '939': 'PR',
};

const E164 = /^\+[1-9]\d{7,14}$/;
const NANP = /^\+1[2-9]\d{2}[2-9]\d{6}$/;

/** The country a number is in, with the prefix that says so (+1 and the area code for +1), or null. */
export function countryOfNumber(phone: string): { country: string; prefix: string } | null {
  if (!E164.test(phone)) return null;
  if (phone.startsWith('+1')) {
    if (!NANP.test(phone)) return null;
    const area = phone.slice(2, 5);
    return { country: NANP_AREA_COUNTRY[area] ?? 'US', prefix: `+1${area}` };
  }
  if (phone.startsWith('+7')) return { country: /^\+7[67]/.test(phone) ? 'KZ' : 'RU', prefix: '+7' };
  for (const n of [2, 3]) {
    const code = phone.slice(1, 1 + n);
    const country = CODE_COUNTRY[code];
    if (country) return { country, prefix: `+${code}` };
  }
  return null;
}

/** Every country a number can be in: what the allowed-countries list may hold. */
export const CALLABLE_COUNTRIES: ReadonlySet<string> = new Set([
  'US',
  'RU',
  'KZ',
  ...Object.values(CODE_COUNTRY),
  ...Object.values(NANP_AREA_COUNTRY),
]);

const regionNames = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'region' }) : undefined;

/** 'Cuba (CU)' */
export function countryLabel(code: string): string {
  let name: string | undefined;
  try {
    name = regionNames?.of(code);
  } catch {
    name = undefined;
  }
  return name && name !== code ? `${name} (${code})` : code;
}

export const DESTINATION_MESSAGES = {
  blocked: (prefix: string, reason: string) => `Calls to ${prefix}… are not allowed: ${reason}.`,
  unassigned: (prefix: string) => `Calls to ${prefix}… are not allowed: ${prefix} is not assigned to any country.`,
  notNanp: (prefix: string) => `Calls to ${prefix}… are not allowed: it is not a valid North American number.`,
  notAllowed: (prefix: string, country: string, allowed: readonly string[]) =>
    allowed.length === 0
      ? `Calls to ${prefix}… are not allowed: this company has no allowed countries yet (Billing > Limits).`
      : `Calls to ${prefix}… are not allowed: ${countryLabel(country)} is not in this company's allowed countries (${allowed.join(', ')}).`,
  allowedCountriesFormat: 'Allowed countries must be two-letter country codes separated by commas, like US, GB',
  allowedCountryUnknown: (code: string) => `${code} is not a country code Parley can call`,
  allowedCountriesMax: 'At most 100 allowed countries',
} as const;

const NANP_INFORMATION_EXCHANGE = /^\+1[2-9]\d{2}976\d{4}$/;

/**
 * Why a call to `phone` (E.164) is refused, or null when it may be placed. `allowed`: the company's allowed
 * countries (ISO 3166 alpha-2; the caller resolves an empty setting to the countries of its numbers).
 */
export function destinationRefusal(phone: string, allowed: readonly string[]): string | null {
  for (const range of BLOCKED_RANGES)
    if (phone.startsWith(range.prefix)) return DESTINATION_MESSAGES.blocked(range.prefix, range.reason);
  if (NANP_INFORMATION_EXCHANGE.test(phone)) return DESTINATION_MESSAGES.blocked(phone.slice(0, 8), PREMIUM);
  const at = countryOfNumber(phone);
  if (!at) {
    if (phone.startsWith('+1')) return DESTINATION_MESSAGES.notNanp(phone.slice(0, 5));
    // the spare code: as many digits as an assigned code would have (3 when none starts the same way)
    const code = phone.slice(1, 4);
    return DESTINATION_MESSAGES.unassigned(`+${code}`);
  }
  if (!allowed.includes(at.country)) return DESTINATION_MESSAGES.notAllowed(at.prefix, at.country, allowed);
  return null;
}

/** The countries of a company's own numbers, sorted: its allowed countries when it set none. */
export function countriesOfNumbers(phones: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const p of phones) {
    const c = countryOfNumber(p)?.country;
    if (c) out.add(c);
  }
  return [...out].sort();
}
