// Injected on demand by the background with
//   chrome.scripting.executeScript({ target: { tabId }, files: ['/extract.js'] })
// and its return value read from InjectionResult.result (globalName: true is required for that in WXT 0.21).
// It only reads the page and persists nothing there. The logic lives in core/page/extract-dom.ts.
import { extractPage } from '@/core/page/extract-dom';

export default defineUnlistedScript({
  globalName: true,
  main() {
    return extractPage(document);
  },
});
