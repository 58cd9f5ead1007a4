// AI model providers: API keys of OpenAI, Anthropic and the other model and vector services.
// Each format as the provider documents it.

import type { DetectionRule } from '../detect.ts';
import { contextual, minBits, secretRule, token } from './rule.ts';

/** `T3BlbkFJ` is base64 of `OpenAI`: OpenAI keys carry it between two random halves. */
const OPENAI_MARK = 'T3BlbkFJ';

export const AI_RULES: readonly DetectionRule[] = [
  token({
    id: 'openai-api-key',
    type: 'OPENAI_KEY',
    prefix: 'sk-',
    body: `[A-Za-z0-9]{20}${OPENAI_MARK}[A-Za-z0-9]{20}`,
    keywords: [OPENAI_MARK.toLowerCase()],
    confidence: 0.97,
  }),
  token({ id: 'openai-project-key', type: 'OPENAI_KEY', prefix: 'sk-proj-', body: '[A-Za-z0-9_-]{40,200}' }),
  token({
    id: 'openai-service-account-key',
    type: 'OPENAI_KEY',
    prefix: 'sk-svcacct-',
    body: '[A-Za-z0-9_-]{40,200}',
  }),
  token({ id: 'openai-admin-key', type: 'OPENAI_KEY', prefix: 'sk-admin-', body: '[A-Za-z0-9_-]{40,200}' }),
  token({
    id: 'anthropic-api-key',
    type: 'ANTHROPIC_KEY',
    prefix: 'sk-ant-api03-',
    body: '[A-Za-z0-9_-]{80,120}',
    confidence: 0.97,
  }),
  token({
    id: 'anthropic-admin-key',
    type: 'ANTHROPIC_KEY',
    prefix: 'sk-ant-admin01-',
    body: '[A-Za-z0-9_-]{80,120}',
    confidence: 0.97,
  }),
  token({
    id: 'anthropic-oauth-token',
    type: 'ANTHROPIC_TOKEN',
    prefix: 'sk-ant-oat01-',
    body: '[A-Za-z0-9_-]{80,120}',
  }),
  token({
    id: 'anthropic-refresh-token',
    type: 'ANTHROPIC_TOKEN',
    prefix: 'sk-ant-ort01-',
    body: '[A-Za-z0-9_-]{80,120}',
  }),
  token({
    id: 'huggingface-access-token',
    type: 'HUGGINGFACE_TOKEN',
    prefix: 'hf_',
    body: '[A-Za-z0-9]{34}',
    confidence: 0.9,
  }),
  token({
    id: 'huggingface-organization-token',
    type: 'HUGGINGFACE_TOKEN',
    prefix: 'api_org_',
    body: '[A-Za-z0-9]{34}',
    confidence: 0.9,
  }),
  token({ id: 'replicate-api-token', type: 'REPLICATE_TOKEN', prefix: 'r8_', body: '[A-Za-z0-9]{37}' }),
  token({ id: 'groq-api-key', type: 'GROQ_KEY', prefix: 'gsk_', body: '[A-Za-z0-9]{52}' }),
  token({ id: 'perplexity-api-key', type: 'PERPLEXITY_KEY', prefix: 'pplx-', body: '[A-Za-z0-9]{48}' }),
  token({ id: 'xai-api-key', type: 'XAI_KEY', prefix: 'xai-', body: '[A-Za-z0-9]{80}' }),
  token({ id: 'openrouter-api-key', type: 'OPENROUTER_KEY', prefix: 'sk-or-v1-', body: '[a-f0-9]{64}' }),
  token({
    id: 'langsmith-api-key',
    type: 'LANGSMITH_KEY',
    prefix: 'lsv2_',
    body: '(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}',
  }),
  token({
    id: 'langfuse-secret-key',
    type: 'LANGFUSE_KEY',
    prefix: 'sk-lf-',
    body: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  }),
  token({
    id: 'pinecone-api-key',
    type: 'PINECONE_KEY',
    prefix: 'pcsk_',
    body: '[A-Za-z0-9]{5,6}_[A-Za-z0-9]{60,70}',
  }),
  token({ id: 'nvidia-api-key', type: 'NVIDIA_KEY', prefix: 'nvapi-', body: '[A-Za-z0-9_-]{64}' }),
  token({ id: 'cerebras-api-key', type: 'CEREBRAS_KEY', prefix: 'csk-', body: '[a-z0-9]{48}' }),
  token({
    id: 'fireworks-api-key',
    type: 'FIREWORKS_KEY',
    prefix: 'fw_',
    body: '[A-Za-z0-9]{24}',
    confidence: 0.85,
  }),
  contextual({
    id: 'deepseek-api-key',
    type: 'DEEPSEEK_KEY',
    names: ['deepseek'],
    value: 'sk-[a-f0-9]{32}',
    confidence: 0.85,
  }),
  contextual({
    id: 'elevenlabs-api-key',
    type: 'ELEVENLABS_KEY',
    names: ['elevenlabs', 'xi-api-key', 'xi_api_key'],
    value: '(?:sk_)?[a-f0-9]{32,48}',
  }),
  contextual({
    id: 'cohere-api-key',
    type: 'COHERE_KEY',
    names: ['cohere', 'co_api_key'],
    value: '[A-Za-z0-9]{40}',
    check: minBits(4),
  }),
  contextual({
    id: 'mistral-api-key',
    type: 'MISTRAL_KEY',
    names: ['mistral'],
    value: '[A-Za-z0-9]{32}',
    check: minBits(4),
  }),
  contextual({
    id: 'together-api-key',
    type: 'TOGETHER_KEY',
    names: ['together'],
    value: '(?:tgp_v1_)?[A-Za-z0-9_-]{43,64}',
    check: minBits(3.5),
  }),
  contextual({
    id: 'azure-openai-api-key',
    type: 'AZURE_OPENAI_KEY',
    names: ['azure_openai', 'azureopenai', 'aoai'],
    value: '[a-f0-9]{32}|[A-Za-z0-9]{84}',
  }),
  contextual({ id: 'deepgram-api-key', type: 'DEEPGRAM_KEY', names: ['deepgram'], value: '[a-f0-9]{40}' }),
  contextual({
    id: 'assemblyai-api-key',
    type: 'ASSEMBLYAI_KEY',
    names: ['assemblyai', 'assembly_ai'],
    value: '[a-f0-9]{32}',
  }),
  contextual({ id: 'wandb-api-key', type: 'WANDB_KEY', names: ['wandb'], value: '[a-f0-9]{40}' }),
  // The key given to the client in code, `wandb.login(key="…")` or first (notebooks escape the
  // quotes; a W&B Server key starts `local-`), or to its command line, `wandb login KEY`.
  secretRule({
    id: 'wandb-login-key',
    type: 'WANDB_KEY',
    keywords: ['wandb.login(', 'wandb login'],
    pattern:
      /\bwandb\.login\([ \t\r\n]{0,40}(?:[^)]{0,200}?\bkey[ \t]{0,8}=[ \t]{0,8})?[rfbu]{0,2}\\?["'](?<value>(?:local-)?[a-f0-9]{40}|wandb_v1_[A-Za-z0-9_-]{40,120})\\?["']|\bwandb[ \t]{1,8}login(?:[ \t]{1,8}--?[\w-]+)*[ \t]{1,8}(?<value>(?:local-)?[a-f0-9]{40}|wandb_v1_[A-Za-z0-9_-]{40,120})\b/g,
    confidence: 0.9,
    check: minBits(3),
  }),
  // W&B's newer keys carry their kind (`wandb_v1_…`).
  token({ id: 'wandb-v1-api-key', type: 'WANDB_KEY', prefix: 'wandb_v1_', body: '[A-Za-z0-9_-]{40,120}' }),
  contextual({
    id: 'stability-api-key',
    type: 'STABILITY_KEY',
    names: ['stability'],
    value: 'sk-[A-Za-z0-9]{48}',
    confidence: 0.85,
  }),
  contextual({
    id: 'voyage-api-key',
    type: 'VOYAGE_KEY',
    names: ['voyage'],
    value: 'pa-[A-Za-z0-9_-]{43}',
    confidence: 0.85,
  }),
];
