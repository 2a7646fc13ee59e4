// The bundled table's units (`@pydantic/genai-prices` 0.1.8) as far as the bridge needs them: the
// price keys its five token counts reach, and every price key the table knows (a price naming
// another is left to the table's engine). `test/pricing/genai-plan.test.ts` holds plans built on
// them to the engine's answers.

export type Reached = 'input' | 'cache_read' | 'cache_write' | 'output' | 'reasoning' | 'requests';

/** The price keys the bridge's counts reach, with the table's unit for each. */
export const REACHED: Readonly<
  Record<string, { unit: Reached; per: number; direction: 0 | 1 | 2 }>
> = {
  input_mtok: { unit: 'input', per: 1e6, direction: 0 },
  cache_read_mtok: { unit: 'cache_read', per: 1e6, direction: 0 },
  cache_write_mtok: { unit: 'cache_write', per: 1e6, direction: 0 },
  output_mtok: { unit: 'output', per: 1e6, direction: 1 },
  output_reasoning_mtok: { unit: 'reasoning', per: 1e6, direction: 1 },
  requests_kcount: { unit: 'requests', per: 1e3, direction: 2 },
};

/** Every price key of the table's unit lattice (0.1.8). */
export const KNOWN_PRICE_KEYS = new Set([
  'audio_hours',
  'cache_audio_read_mtok',
  'cache_audio_write_1h_mtok',
  'cache_audio_write_5m_mtok',
  'cache_audio_write_mtok',
  'cache_image_read_mtok',
  'cache_image_write_1h_mtok',
  'cache_image_write_5m_mtok',
  'cache_image_write_mtok',
  'cache_read_mtok',
  'cache_text_read_mtok',
  'cache_text_write_1h_mtok',
  'cache_text_write_5m_mtok',
  'cache_text_write_mtok',
  'cache_video_read_mtok',
  'cache_video_write_1h_mtok',
  'cache_video_write_5m_mtok',
  'cache_video_write_mtok',
  'cache_write_1h_mtok',
  'cache_write_5m_mtok',
  'cache_write_mtok',
  'code_executions_kcount',
  'input_annotated_document_kpages',
  'input_audio_hours',
  'input_audio_mtok',
  'input_audio_tool_mtok',
  'input_document_kpages',
  'input_gpixels',
  'input_image_mtok',
  'input_image_tool_mtok',
  'input_mchars',
  'input_mtok',
  'input_text_messages_kcount',
  'input_text_mtok',
  'input_text_tool_mtok',
  'input_tool_mtok',
  'input_video_mtok',
  'input_video_tool_mtok',
  'output_audio_citation_mtok',
  'output_audio_hours',
  'output_audio_mtok',
  'output_audio_reasoning_mtok',
  'output_citation_mtok',
  'output_image_citation_mtok',
  'output_image_mtok',
  'output_image_reasoning_mtok',
  'output_mtok',
  'output_reasoning_mtok',
  'output_text_citation_mtok',
  'output_text_mtok',
  'output_text_reasoning_mtok',
  'output_video_citation_mtok',
  'output_video_mtok',
  'output_video_reasoning_mtok',
  'requests_kcount',
  'rerank_searches_kcount',
  'social_searches_kcount',
  'storage_searches_kcount',
  'web_searches_kcount',
]);
