// The server's logger. At the default level it prints what an operator wants to see (start-up,
// warnings and errors, activations, lifecycle changes, the audit); one line per request only at
// `debug`. JSON lines for log collectors, or readable lines for people (`--log-format pretty`).
import { pino, type Logger } from 'pino';
import { createRequire } from 'node:module';
import type pretty from 'pino-pretty';

export type LogFormat = 'json' | 'pretty';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The web framework announces each address it listens on; the server's own start-up lines say it
 * already (with the console and how to sign in), so the framework's line is left out.
 */
const hooks = {
  logMethod(this: Logger, args: Parameters<Logger['info']>, method: Logger['info']) {
    if (typeof args[0] === 'string' && args[0].startsWith('Server listening at ')) return;
    method.apply(this, args);
  },
};

export function makeLogger(level: string, format: LogFormat): Logger {
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`unknown log level '${level}': use one of ${LOG_LEVELS.join(', ')}`);
  }
  if (format !== 'json' && format !== 'pretty') throw new Error(`unknown log format '${String(format)}': use json or pretty`);
  if (format === 'pretty') {
    // Loaded only for readable lines: JSON lines (the default) do not pay for it at start-up.
    const readable = createRequire(import.meta.url)('pino-pretty') as typeof pretty;
    return pino({ level, hooks }, readable({ colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,reqId', singleLine: true, sync: true }));
  }
  return pino({ level, hooks });
}
