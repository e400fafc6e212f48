import { describe, expect, it } from 'vitest';
import { namesFromVariables, REDACT_MAX_CHARS, redactText, redactValue } from '../../../server/platform/redaction';

/** [what the recogniser wrote, what is kept] */
const CASES: [string, string][] = [
  // phones, spoken and written
  ['my number is five five five, one two three four', 'my number is [PHONE]'],
  ['call me back on 555 123 4567 please', 'call me back on [PHONE] please'],
  ['it is (415) 555-0142.', 'it is [PHONE].'],
  ['plus one four one five, five five five, zero one four two', 'plus [PHONE]'],
  ['four one five double five five oh one four two', '[PHONE]'],
  ['five fifty-five, one two three, four five six seven', '[PHONE]'],
  // emails
  ['my email is john dot smith at gmail dot com', 'my email is [EMAIL]'],
  ['send it to jane_doe@example.org thanks', 'send it to [EMAIL] thanks'],
  ['it is j smith at yahoo.co.uk', 'it is j [EMAIL]'],
  // birth dates
  ['my birthday is March third nineteen forty-two', 'my birthday is [DATE_OF_BIRTH]'],
  ['I was born on the fifth of June 1987', 'I was born on [DATE_OF_BIRTH]'],
  ['date of birth 03/14/1962', 'date of birth [DATE_OF_BIRTH]'],
  ['born December twenty first, two thousand and three', 'born [DATE_OF_BIRTH]'],
  ['I was born in nineteen fifty', 'I was born [DATE_OF_BIRTH]'],
  // SSN and cards
  ['my social is one two three, four five, six seven eight nine', 'my social is [SSN]'],
  ['ssn 123-45-6789', 'ssn [SSN]'],
  ['the card is four two four two, four two four two, four two four two, four two four two', 'the card is [CARD_NUMBER]'],
  ['card number 4111 1111 1111 1111 expires', 'card number [CARD_NUMBER] expires'],
  // addresses
  ['I live at one two three Main Street', 'I live at [ADDRESS]'],
  ['send it to 42 Elm Avenue, apartment 5B', 'send it to [ADDRESS]'],
  ['four fifty Oak Tree Lane', '[ADDRESS]'],
  // names
  ['Hi, my name is Jane Doe and I need a refill', 'Hi, my name is [NAME] [NAME] and I need a refill'],
  ['my name is maria', 'my name is [NAME]'],
  ['this is Robert calling about my appointment', 'this is [NAME] calling about my appointment'],
];

/** Nothing personal: kept as is. */
const KEPT = [
  'I need an appointment next Tuesday at two',
  'I have two kids, five and seven',
  'can we meet at noon',
  'it costs one hundred and twenty dollars',
  "I'm fine, thank you",
  'press one for billing',
  'my appointment is on March third',
  'this is about my prescription',
  'at 2026-11-22T10:00:00.000Z',
];

describe('redactText over spoken forms', () => {
  it.each(CASES)('%s', (text, kept) => {
    expect(redactText(text)).toBe(kept);
  });

  it.each(KEPT)('keeps %s', (text) => {
    expect(redactText(text)).toBe(text);
  });

  it("replaces the names a call's dynamic variables carry, wherever they occur", () => {
    const names = namesFromVariables({ patient_name: 'Eleanor Rigby', clinic: 'Northside' });
    expect(names).toEqual(['Eleanor', 'Rigby']);
    expect(redactText('Is this eleanor? Ms Rigby, your results are in', { names })).toBe(
      'Is this [NAME]? Ms [NAME], your results are in',
    );
    expect(redactText('Northside clinic', { names })).toBe('Northside clinic');
  });

  it('redacts every string of a function call, keys kept', () => {
    expect(redactValue({ phone: '555 123 4567', n: 2, nested: [{ email: 'a@b.com' }] })).toEqual({
      phone: '[PHONE]',
      n: 2,
      nested: [{ email: '[EMAIL]' }],
    });
  });

  it('cuts a huge text before it is scanned', () => {
    const out = redactText('one two '.repeat(REDACT_MAX_CHARS));
    expect(out.length).toBeLessThanOrEqual(REDACT_MAX_CHARS);
  });
});
