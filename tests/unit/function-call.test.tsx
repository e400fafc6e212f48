/**
 * A function call as Test LLM and the call detail show it (src/routes/dashboard/-components/function-call):
 * a group named after the function, its arguments, status in words, duration in ms, and the result behind
 * a named expander that is collapsed at first. Rendered to markup and read back (the expander's click is
 * walked in Chromium by tests/e2e/function-calls.test.ts).
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TOOL_CALL_STATUSES } from '../../src/api/contract/call-runtime';
import { FunctionCall, TOOL_STATUS_LABELS } from '../../src/routes/dashboard/-components/function-call/FunctionCall';

/** The markup's text as a reader gets it (tags dropped, entities of quotes decoded). */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/\s+/g, ' ')
    .trim();

describe('a function call', () => {
  it('a call that ran: a group named after it with its arguments, status, duration and a collapsed result', () => {
    const html = renderToStaticMarkup(
      <FunctionCall
        call={{
          name: 'check_availability',
          arguments: { date: '2026-12-08' },
          status: 'ok',
          result: '{"slots":["09:00"]}',
          ms: 412.4,
        }}
      />,
    );
    expect(html).toMatch(/^<div role="group" aria-label="Function call check_availability"/);
    expect(text(html)).toContain('Function called: check_availability');
    expect(text(html)).toContain('Status: OK');
    expect(text(html)).toContain('Duration: 412 ms');
    expect(text(html)).toContain('Arguments: {"date":"2026-12-08"}');
    // the expander names itself, says it is collapsed, and controls the hidden result
    const button = /<button[^>]*>/.exec(html)?.[0] ?? '';
    expect(button).toContain('aria-expanded="false"');
    const controls = /aria-controls="([^"]+)"/.exec(button)?.[1];
    expect(text(/<button[^>]*>.*?<\/button>/.exec(html)?.[0] ?? '')).toBe('Show result');
    expect(html).toMatch(
      new RegExp(`<pre id="${controls}"[^>]*hidden=""[^>]*>\\{&quot;slots&quot;:\\[&quot;09:00&quot;\\]\\}</pre>`),
    );
  });

  it('every status in its own words', () => {
    expect(TOOL_STATUS_LABELS).toEqual({
      ok: 'OK',
      error: 'Error',
      timeout: 'Timed out',
      cancelled: 'Cancelled',
      invalid_arguments: 'Invalid arguments',
    });
    for (const status of TOOL_CALL_STATUSES) {
      const html = renderToStaticMarkup(<FunctionCall call={{ name: 'f', arguments: {}, status, result: 'x', ms: 1 }} />);
      expect(text(html)).toContain(`Status: ${TOOL_STATUS_LABELS[status]}`);
    }
  });

  it('end_call has no outcome: only its name and arguments, no status, duration or expander', () => {
    const html = renderToStaticMarkup(<FunctionCall call={{ name: 'end_call', arguments: { reason: 'done' } }} />);
    expect(text(html)).toBe('Function called: end_call Arguments: {"reason":"done"}');
    expect(html).not.toContain('<button');
  });

  it('an empty result still has an expander and says it is empty; markup in a result stays text', () => {
    expect(
      text(renderToStaticMarkup(<FunctionCall call={{ name: 'f', arguments: {}, status: 'ok', result: '', ms: 0 }} />)),
    ).toContain('(empty)');
    const html = renderToStaticMarkup(
      <FunctionCall call={{ name: 'f', arguments: {}, status: 'error', result: '<img src=x onerror=alert(1)>', ms: 3 }} />,
    );
    expect(html).not.toContain('<img');
  });
});
