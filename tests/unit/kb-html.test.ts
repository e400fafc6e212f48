import { describe, expect, it } from 'vitest';
import { chunkText, htmlToText } from '../../server/modules/knowledge/kb.extract.js';
import { deepNestingHtml, hugeAttributeHtml, unclosedCommentsHtml, unclosedTagsHtml } from '../fixtures/hostile.js';

describe('knowledge-base HTML text', () => {
  it('keeps the visible text: hidden elements and comments dropped, blocks as lines, references decoded', () => {
    const html = `<!doctype html><html><head><title>Title</title><meta charset="utf-8"><style>p { color: red }</style></head>
<body><h1>Visiting   hours</h1><!-- staff only --><p>Mon&ndash;Fri &amp; <b>Sat</b>&nbsp;10&#58;00&#x2013;12</p>
<script>if (a < b) alert("</p>")</script><noscript>Enable JS</noscript><template><p>row</p></template>
<ul><li>One</li><li>Two<br>lines</li></ul><div>Caf&eacute; &lt;tags&gt; &unknown; &#0;</div></body></html>`;
    expect(htmlToText(html)).toBe('Visiting hours\nMon–Fri & Sat 10:00–12\n\nOne\nTwo\nlines\nCafé <tags> &unknown; \uFFFD');
  });

  it('ends a head left open where the body starts, and drops nested hidden elements whole', () => {
    expect(htmlToText('<head><title>x</title><body><p>Shown</p></body>')).toBe('Shown');
    expect(htmlToText('<template>a<template>b</template>c</template><p>after</p>')).toBe('after');
  });

  // Each of these took the old regular expressions time growing with the square of the input: at these
  // sizes, minutes to hours. Linear reading finishes them within the test's time limit.
  it('reads hostile markup in one linear pass', () => {
    expect(htmlToText(unclosedTagsHtml(1_000_000))).toBe('hi');
    expect(htmlToText(unclosedCommentsHtml(1_000_000))).toBe('hi');
    expect(htmlToText(deepNestingHtml(200_000))).toBe('deep text');
    expect(htmlToText(`${'<div>'.repeat(100_000)}${'</nope>'.repeat(100_000)}end`)).toBe('end');
    expect(htmlToText(hugeAttributeHtml(8 * 1024 * 1024))).toBe('before');
    expect(htmlToText(`<p>${'&amp;'.repeat(500_000)}</p>`)).toHaveLength(500_000);
    expect(htmlToText(`<script>${'<!--<script>'.repeat(200_000)}`)).toBe('');
  });

  it('chunks long whitespace runs and unbroken text in linear time', () => {
    expect(chunkText(`a\n${' \t'.repeat(2_000_000)}b`)).toHaveLength(1);
    expect(chunkText('x'.repeat(3_000_000)).every((c) => c.length <= 1500)).toBe(true);
    expect(chunkText('\n \n'.repeat(1_000_000))).toEqual([]);
  });
});
