// Takes the user to where a page answer came from (docs/tools.md, "Answers that show where"): run in the tab by
// chrome.scripting.executeScript({ func: showSection, args }), so it is self-contained (no imports, no helpers
// outside its body) and reads `doc`, the page's document unless a test passes one. It finds the section's heading,
// then the first block after it holding the quoted chunk's first words (else the heading itself), scrolls that
// into the middle of the view and lays a highlight over it for `holdMs`, then removes the highlight: the page's own
// elements are never changed, and nothing stays behind.
export function showSection(heading: string, snippet: string, holdMs: number, doc: Document = document): boolean {
  const norm = (t: string | null | undefined) => (t ?? '').replace(/\s+/g, ' ').trim().toLowerCase();
  const wanted = norm(heading);
  const probe = norm(snippet).slice(0, 60);
  const headings = wanted
    ? [...doc.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter((h) => norm(h.textContent) === wanted)
    : [];
  const blocks = probe
    ? [...doc.querySelectorAll('p, li, td, th, dd, dt, blockquote, pre, figcaption, h1, h2, h3, h4, h5, h6')]
    : [];
  // Node.DOCUMENT_POSITION_FOLLOWING: `b` comes after `a` in the document.
  const follows = (a: Element, b: Element) => (a.compareDocumentPosition(b) & 4) !== 0;
  let target: Element | null = null;
  for (const h of headings.length ? headings : [null]) {
    const block = blocks.find((b) => (!h || follows(h, b)) && norm(b.textContent).includes(probe));
    if (block) {
      target = block;
      break;
    }
  }
  target ??= headings[0] ?? null;
  if (!target) return false;
  target.scrollIntoView?.({ block: 'center', behavior: 'instant' });
  const win = doc.defaultView;
  const rect = target.getBoundingClientRect?.();
  if (!win || !rect) return true;
  const mark = doc.createElement('div');
  mark.setAttribute('data-sidetalk-highlight', '');
  mark.setAttribute('aria-hidden', 'true');
  Object.assign(mark.style, {
    position: 'absolute',
    left: `${rect.left + win.scrollX - 6}px`,
    top: `${rect.top + win.scrollY - 4}px`,
    width: `${rect.width + 12}px`,
    height: `${rect.height + 8}px`,
    background: 'rgba(255, 214, 0, 0.3)',
    outline: '3px solid rgba(255, 160, 0, 0.9)',
    borderRadius: '6px',
    pointerEvents: 'none',
    zIndex: '2147483647',
    transition: 'opacity 400ms',
  });
  doc.documentElement.appendChild(mark);
  win.setTimeout(() => {
    mark.style.opacity = '0';
    win.setTimeout(() => mark.remove(), 450);
  }, holdMs);
  return true;
}
