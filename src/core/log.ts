// What the server's parts need of a logger. The composition root gives them the real one (pino);
// parts made without one log nothing.
export interface Log {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

const nothing = () => {};

export const SILENT_LOG: Log = { debug: nothing, info: nothing, warn: nothing, error: nothing };
