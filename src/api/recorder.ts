// The audit trail of changes made through the API: who, from where, what, on which bean, and how it
// ended, stored before the answer is returned, whatever way the change ends.
import { Problem, isProblem } from '../core/problems.js';
import { type AuditLog, type AuditNote, redact, secretValues } from '../security/audit.js';
import type { Caller } from './caller.js';

/** An answer whose status says how a change ended (202: accepted, a task runs on). */
export interface Ended {
  status: number;
}

export class Recorder {
  constructor(private readonly audit: AuditLog) {}

  /** Runs a change (`action` on `bean`) and records how it ended; a failure is recorded and rethrown. */
  async change<T extends Ended>(caller: Caller, action: string, bean: string, body: unknown, run: (note: AuditNote) => Promise<T>): Promise<T> {
    const note: AuditNote = {};
    // Values sent under secret names never reach the record, not even inside an error message.
    const secrets = secretValues(body);
    let answer: T;
    try {
      answer = await run(note);
    } catch (err) {
      await this.store(caller, action, bean, isProblem(err, 'forbidden') ? 'refused' : 'failure', redact(describe(err), secrets));
      throw err;
    }
    await this.store(caller, action, bean, answer.status === 202 ? 'accepted' : 'success', redact(note.detail ?? '', secrets));
    return answer;
  }

  /** Runs a check made before a change is even read: a refusal is recorded as the change's. */
  refusal(caller: Caller, action: string, bean: string, check: () => void): void | Promise<void> {
    try {
      check();
    } catch (err) {
      if (!isProblem(err, 'forbidden')) throw err;
      return this.store(caller, action, bean, 'refused', describe(err)).then(() => {
        throw err;
      });
    }
  }

  private async store(caller: Caller, action: string, bean: string, outcome: 'success' | 'accepted' | 'failure' | 'refused', detail: string): Promise<void> {
    await this.audit.record({ user: caller.principal?.user ?? null, address: caller.address, action, bean, outcome, detail });
  }
}

/** A failure as the record tells it: the kind of problem, then its message. */
function describe(err: unknown): string {
  if (err instanceof Problem) return `${err.kind}: ${err.message}`;
  return `internal: ${err instanceof Error ? err.message : String(err)}`;
}
