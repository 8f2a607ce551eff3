// Preloaded (node --import) into the reference MCP server, which listens on every interface: its
// HTTP server listens on 127.0.0.1 only, on the port the kernel picks, and says which on stderr.
import http from 'node:http';

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
  this.once('listening', () => process.stderr.write(`BERTH_LOOPBACK_PORT ${this.address().port}\n`));
  return listen.call(this, 0, '127.0.0.1', callback);
};
