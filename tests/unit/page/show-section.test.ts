// A source of a page answer, clicked: the block it came from is found by heading and first words
// (core/page/show-section.ts); the e2e (tests/e2e/page-ask.e2e.ts) proves the scroll and the highlight in Chromium.
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { showSection } from '../../../core/page/show-section';

const HTML = `<!doctype html><html><body><main>
  <h1>Guide</h1><p id="intro">Welcome to the guide for the harbour. Tides here rise twice a day. The next section says more.</p>
  <h2>Tides</h2><p id="t1">Tides here rise twice a day.</p><p id="t2">Spring tides reach the <a>sea wall</a> in March.</p>
  <h2>Boats</h2><p id="b1">Boats moor on the east quay.</p>
  <h2>Tides</h2><p id="t3">A second section that is also called tides, about the old tide tables.</p>
</main></body></html>`;

function page() {
  const { document } = parseHTML(HTML);
  const scrolled: string[] = [];
  for (const el of document.querySelectorAll('*'))
    (el as unknown as { scrollIntoView: () => void }).scrollIntoView = () => scrolled.push(el.id || el.tagName);
  return { doc: document as unknown as Document, scrolled };
}

describe('showing a source on the page', () => {
  it('scrolls to the block under the heading that holds the quoted words, across inline elements', () => {
    const { doc, scrolled } = page();
    expect(showSection('Tides', 'Spring tides reach the sea wall in March.', 1_000, doc)).toBe(true);
    expect(scrolled).toEqual(['t2']);
  });

  it('looks under the section, not at the same words earlier on the page', () => {
    const { doc, scrolled } = page();
    expect(showSection('Tides', 'Tides here rise twice a day.', 1_000, doc)).toBe(true);
    expect(scrolled).toEqual(['t1']);
  });

  it('picks, among sections of the same name, the one holding the words', () => {
    const { doc, scrolled } = page();
    expect(showSection('Tides', 'A second section that is also called tides', 1_000, doc)).toBe(true);
    expect(scrolled).toEqual(['t3']);
  });

  it('falls back to the heading when the words are not found, and to the words alone for the opening', () => {
    const a = page();
    expect(showSection('Boats', 'words that are nowhere', 1_000, a.doc)).toBe(true);
    expect(a.scrolled).toEqual(['H2']);
    const b = page();
    expect(showSection('', 'Welcome to the guide', 1_000, b.doc)).toBe(true);
    expect(b.scrolled).toEqual(['intro']);
  });

  it('says so when neither is on the page', () => {
    const { doc, scrolled } = page();
    expect(showSection('Missing', 'nowhere', 1_000, doc)).toBe(false);
    expect(scrolled).toEqual([]);
  });
});
