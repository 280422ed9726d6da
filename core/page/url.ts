/**
 * The page address as Sidetalk passes it on (into the page prompt, so to the model and to the user's own model server
 * if one is set): scheme, host and path only. The query and the fragment often carry search terms, session tokens or
 * one-time codes, and `user:password@` credentials never belong in a prompt (docs/security.md, "What leaves the
 * machine"). No imports: this runs inside the user's tab too (core/page/extract-dom.ts).
 */
export function pageUrlForPrompt(href: string): string {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return '';
  }
  url.search = '';
  url.hash = '';
  url.username = '';
  url.password = '';
  return url.href;
}
