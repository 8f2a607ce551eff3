export { Assistant, Assistant as Agent, type AssistantConfig, type AgentConfig } from './runtime/assistant.js';
export { AgentHost } from './runtime/host.js';
export { SessionStore } from './storage/sessions.js';
export { serveApp, hostApp } from './runtime/server.js';
export { agentLogger } from './logger.js';
export { ChatCompletionBody, checkChatBody, checkSessionId } from '@berth/contracts';
export { AgentError } from './errors.js';
export { OpenAiCompatibleProvider } from './model/openai-compatible.js';
export { OpenAiCompatibleTranscriber, type Transcriber } from './model/transcriber.js';
