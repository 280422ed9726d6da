// What the injected extractor returns from the tab (a plain, structured-clonable object).

// 'pdf': text read from a PDF with pdf.js, one section per page; 'video': a video's captions, one section per stretch of time.
/**
 * The page text's cap, wherever the text comes from (the extractor in the tab, a PDF): 250,000 words at 8 characters
 * a word (docs/tools.md, "Whole pages"). From the tab, the executeScript result is then at most about 4 MB,
 * structured-cloned once per page question.
 */
export const MAX_PAGE_TEXT_CHARS = 2_000_000;

export type ExtractionKind = 'selection' | 'article' | 'fallback' | 'empty' | 'pdf' | 'video';

export interface PageExtraction {
  title: string;
  url: string;
  lang: string;
  /** The user's selection, trimmed ('' when none). */
  selection: string;
  /** Readable text; headings are marked Markdown-style ("# Title", "## Section"). */
  text: string;
  kind: ExtractionKind;
  /** True when the text was cut at the extraction cap. */
  truncated: boolean;
}
