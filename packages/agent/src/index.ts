export { Agent, type AgentConfig } from './agent.js';
export { AgentHost } from './host.js';
export { SessionStore } from './sessions/store.js';
export { serveApp, hostApp } from './server.js';
export { agentLogger } from './logger.js';
export { ChatCompletionBody, checkChatBody, checkSessionId } from '@berth/contracts';
export { AgentError } from './errors.js';
