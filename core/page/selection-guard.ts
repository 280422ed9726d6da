// What the user types is never read (docs/security.md, "Trust boundaries"), and that holds for the selection too:
// a selection that starts, ends or lies inside an editable region (a form field, a contenteditable element, a
// document in design mode) is not used, and editable regions inside a wider selection are left out of its text
// (docs/tools.md, "The selection"). Attribute-based, so it runs on linkedom documents in unit tests as well.

const FIELDS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'OPTION']);

/** contenteditable's value: '' / 'true' / 'plaintext-only' make an element editable, 'false' stops inheritance. */
function editableValue(el: Element): boolean | null {
  const v = el.getAttribute('contenteditable');
  if (v === null) return null;
  return v.toLowerCase() !== 'false';
}

/** True when `node` is inside a form field or an editable element (crossing shadow roots to their hosts). */
export function inEditable(node: Node | null): boolean {
  for (let n: Node | null = node; n;) {
    if (n.nodeType === 1) {
      const el = n as Element;
      if (FIELDS.has(el.tagName.toUpperCase())) return true;
      const editable = editableValue(el);
      if (editable !== null) return editable;
    }
    n = n.parentNode ?? ((n as ShadowRoot).host || null);
  }
  return false;
}

/** True when the selection must not be read at all: an end of it or one of its ranges is in an editable region. */
export function selectionInEditable(doc: Document, sel: Selection): boolean {
  if ((doc.designMode ?? '').toLowerCase() === 'on') return true;
  if (inEditable(sel.anchorNode) || inEditable(sel.focusNode)) return true;
  for (let i = 0; i < (sel.rangeCount ?? 0); i++) if (inEditable(sel.getRangeAt(i).commonAncestorContainer)) return true;
  return false;
}

/** The outermost editable elements of the document (a wider selection's text is rebuilt without them). */
export function editableRoots(doc: Document): Element[] {
  return [...doc.querySelectorAll('[contenteditable], textarea')].filter(
    (el) => (FIELDS.has(el.tagName.toUpperCase()) || editableValue(el) === true) && !inEditable(el.parentNode),
  );
}
