// What the injected extractor returns from the tab (a plain, structured-clonable object).

// 'pdf': text read from a PDF with pdf.js, one section per page; 'video': a video's captions, one section per stretch of time.
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
