import { registerTunables } from './registry';

// ---------------------------------------------------------------------------------------------------------------
// tools and page context (core/tools, core/page). Small local models have 2–8k usable tokens, so page context is
// budgeted by tokens; the tool APIs are free public services whose etiquette asks for serial requests, caching and
// polite back-off.
// ---------------------------------------------------------------------------------------------------------------
export const toolTunables = registerTunables(
  'tools',
  {
    /** Whole-request timeout for one tool look-up (the user is waiting on voice). */
    requestTimeoutMs: 6_000,
    /** Retries after HTTP 429 / 503 before giving up. */
    maxRetries: 2,
    /** A Retry-After longer than this is not waited out; we report rate_limited instead. */
    maxRetryWaitMs: 8_000,
    /** Back-off when a 429/503 carries no usable Retry-After (doubles per retry). */
    defaultRetryWaitMs: 1_000,
    /** Wikipedia summaries are stable; cache them this long. */
    wikipediaCacheTtlMs: 30 * 60_000,
    wikipediaCacheMaxEntries: 200,
    /** Spoken Wikipedia answers: first sentence, at most this many characters. */
    maxSpokenChars: 240,
    /** Days of forecast fetched for the weather card. */
    forecastDays: 3,
  },
  {
    requestTimeoutMs: { min: 500, max: 60_000, integer: true },
    maxRetries: { min: 0, max: 5, integer: true },
    maxRetryWaitMs: { min: 0, max: 120_000, integer: true },
    defaultRetryWaitMs: { min: 0, max: 60_000, integer: true },
    wikipediaCacheTtlMs: { min: 0, integer: true },
    wikipediaCacheMaxEntries: { min: 1, max: 10_000, integer: true },
    maxSpokenChars: { min: 40, max: 1_000, integer: true },
    forecastDays: { min: 2, max: 16, integer: true },
  },
);

export const pageTunables = registerTunables(
  'page',
  {
    /**
     * Below this many non-space characters the extracted page counts as empty (e.g. an SPA that has not rendered);
     * checked by the background. The extractor in the tab has its own constants (core/page/extract-dom.ts).
     */
    minReadableChars: 80,
    /** Target size of one retrieval chunk, estimated tokens. */
    chunkTokens: 180,
    /** Token budget for quoted page text in one prompt. */
    contextTokens: 1_500,
    /**
     * Pages beyond this many estimated tokens are only partly indexed, and the user is told so. 500,000 holds a
     * 250,000-word page at 8 characters a word (English runs near 6); the extractor's cap in the tab is 2,000,000
     * characters (core/page/extract-dom.ts). docs/tools.md, "Whole pages".
     */
    maxIndexedTokens: 500_000,
    /** The page index (core/page/page-index.ts) works this long between pauses, so a long page never holds the thread. */
    indexSliceMs: 8,
    /** A page question waits this long for the page's index; then it answers from what is indexed, and says so. */
    indexWaitMs: 2_000,
    /** Page indexes kept (by content) while the offscreen document lives; each holds at most maxIndexedTokens. */
    indexedPagesKept: 2,
    /** How long a clicked source stays highlighted on the page (core/page/show-section.ts). */
    sourceHighlightMs: 2_500,
    /** BM25 parameters (classic defaults). */
    bm25K1: 1.2,
    bm25B: 0.75,
    /**
     * Hybrid retrieval (core/page/fusion.ts): reciprocal rank fusion, score = w / (k + rank) summed over the lexical and
     * the dense ranking. Chosen with bench/retrieval (docs/benchmarks.md, "Page retrieval"): against the paper's k = 60
     * and equal weights, k = 10 with the dense ranking counted twice lifted paraphrase and two-section recall and kept
     * recall on questions in the page's words; measured with the GloVe stand-in, not the pinned model.
     */
    fusionK: 10,
    fusionLexicalWeight: 1,
    fusionDenseWeight: 2,
    /**
     * With no lexical match, a question still counts as found on the page when its best chunk is at least this
     * similar (cosine of normalised sentence embeddings); below it the page's opening is quoted, as before.
     */
    denseMinSimilarity: 0.35,
    /**
     * Only this many estimated tokens of a page are embedded (its beginning): 66 s for 100,000 characters on a 2-core
     * CPU (docs/benchmarks.md, "Page retrieval"), so a whole long page would hold the model worker for many minutes.
     */
    denseMaxIndexedTokens: 60_000,
    /**
     * The same where the models run on WebGPU: a 250,000-word page (~320,000 tokens) embeds in 6.0 s on an H100
     * (bench/results/2026-12-07-retrieval-whole-index.json), so the whole page of the longest size the index takes.
     */
    denseMaxIndexedTokensGpu: 400_000,
    /** Chunks embedded per model call. */
    embedBatchSize: 16,
    /** Word pieces per chunk the embedding model sees (all-MiniLM-L6-v2 was trained on 256). */
    embedMaxTokens: 256,
    /** A page question waits this long for its embeddings, then answers lexically (indexing finishes for next time). */
    denseWaitMs: 8_000,
    /** Pages whose chunk embeddings are kept (by content hash) while the offscreen document lives. */
    embeddedPagesKept: 6,
    /**
     * A PDF larger than this is not read (its bytes travel from the background to the offscreen document as one
     * base64 message, and Chrome caps a message at 64 MiB). docs/tools.md, "PDFs".
     */
    maxPdfBytes: 32 * 1024 * 1024,
    /** A video's captions become sections of about this many seconds, each headed by its start time. */
    captionSectionSeconds: 30,
    /**
     * Inside a section, a time mark "(12:30)" every this many seconds or so: how near a source seeks to what the
     * answer quotes, against the prompt's length (each mark is ~5 tokens; 0: none). docs/tools.md, "Videos".
     */
    captionMarkSeconds: 10,
    /** A page answer's sources card lists the sections of this many best-matching quoted chunks (in page order). */
    maxSources: 5,
    /**
     * Without the embedding model, a page question is first rewritten by the LLM into keywords and synonyms
     * (core/page/query-rewrite.ts); past this wait (0: the LLM is not asked) the built-in thesaurus's synonyms are
     * used instead (docs/tools.md, "Page questions").
     */
    rewriteCapMs: 1_500,
    /** The rewrite's reply is read up to this many characters (about 8 keywords), then the generation is stopped. */
    rewriteMaxChars: 200,
    /** Keywords kept from a rewrite, and new search stems they may add to the question's own. */
    rewriteMaxKeywords: 8,
    rewriteMaxAddedTerms: 10,
    /** Weight of an added stem in BM25; the question's own stems weigh 1 (hence at most 1). */
    rewriteTermWeight: 0.5,
  },
  {
    minReadableChars: { min: 0, integer: true },
    chunkTokens: { min: 20, max: 4_000, integer: true },
    contextTokens: { min: 100, max: 32_000, integer: true },
    maxIndexedTokens: { min: 1_000, max: 2_000_000, integer: true },
    indexSliceMs: { min: 1, max: 200, integer: true },
    indexWaitMs: { min: 0, max: 120_000, integer: true },
    indexedPagesKept: { min: 1, max: 10, integer: true },
    sourceHighlightMs: { min: 200, max: 30_000, integer: true },
    bm25K1: { min: 0, max: 5 },
    bm25B: { min: 0, max: 1 },
    fusionK: { min: 0, max: 1_000 },
    fusionLexicalWeight: { min: 0, max: 10 },
    fusionDenseWeight: { min: 0, max: 10 },
    denseMinSimilarity: { min: -1, max: 1 },
    denseMaxIndexedTokens: { min: 1_000, max: 2_000_000, integer: true },
    denseMaxIndexedTokensGpu: { min: 1_000, max: 2_000_000, integer: true },
    embedBatchSize: { min: 1, max: 256, integer: true },
    embedMaxTokens: { min: 8, max: 512, integer: true },
    denseWaitMs: { min: 0, max: 120_000, integer: true },
    embeddedPagesKept: { min: 1, max: 100, integer: true },
    maxPdfBytes: { min: 1_024, max: 40 * 1024 * 1024, integer: true },
    captionSectionSeconds: { min: 5, max: 600, integer: true },
    captionMarkSeconds: { min: 0, max: 600, integer: true },
    maxSources: { min: 1, max: 12, integer: true },
    rewriteCapMs: { min: 0, max: 30_000, integer: true },
    rewriteMaxChars: { min: 20, max: 2_000, integer: true },
    rewriteMaxKeywords: { min: 0, max: 32, integer: true },
    rewriteMaxAddedTerms: { min: 0, max: 64, integer: true },
    rewriteTermWeight: { min: 0, max: 1 },
  },
);
