// Application deployments through the edit tree: `POST edit/appDeployments` with JSON naming a
// source path on the server, or a multipart upload (a `model` part first, then the archive as the
// part `sourcePath` and optionally a `deploymentPlan` part), and `DELETE edit/appDeployments/{name}`.
// Both honour `Prefer` like the lifecycle operations. Uploads are staged in a folder of their own
// (see staging.ts) that is removed when the request ends, whatever happened.
import { Problem, type ProblemDetail, badRequest, invalid, tooLarge } from '../core/problems.js';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseReference } from '../core/identity.js';
import { nameProblem } from '../config/validate.js';
import type { Domain } from '../domain/domain.js';
import type { RenderContext } from '../render/entity.js';
import type { Task } from '../runtime/tasks.js';
import type { BeanNode } from '../tree/resolve.js';
import { MAX_BODY_BYTES, bodyObject, parseLenient } from './body.js';
import { sendJson } from './send.js';
import { type Staging, StagingArea, isInside } from './staging.js';

const MiB = 1024 * 1024;
/** How often a part still open after the whole body arrived is checked for progress. */
const STALL_CHECK_MS = 1000;

export interface UploadLimits {
  /** Largest uploaded file (archive or plan), in bytes. */
  fileBytes: number;
  /** Most bytes all uploads in progress may stage together. */
  stagingBytes: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { fileBytes: 512 * MiB, stagingBytes: 1024 * MiB };

/** The file parts an upload may carry, each at most once, after the `model` part. */
const FILE_PARTS: Record<string, string> = { sourcePath: 'the application archive', deploymentPlan: 'the deployment plan' };
const EXPECTED = "send the part 'model' first, then the archive as the part 'sourcePath' and optionally the part 'deploymentPlan'";

interface Upload {
  model: Record<string, unknown>;
  /** Part name -> staged file and the file name the client gave. */
  files: Record<string, { path: string; name: string }>;
}

/** A part name as it may appear in a message: shortened, quoted by the caller. */
function shown(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}...` : name;
}

/**
 * Reads a multipart deployment: the `model` part (relaxed JSON, as a field or a small file), checked
 * by `checkModel` before anything else is read, then the file parts, staged in `staging` under names
 * the server chooses. Refuses unknown, repeated or misplaced parts with a 400 naming them.
 */
async function readUpload(request: FastifyRequest, staging: Staging, limits: UploadLimits, checkModel: (model: Record<string, unknown>) => void): Promise<Upload> {
  let model: Record<string, unknown> | undefined;
  const files: Upload['files'] = {};
  const parts = request.parts({
    // Busboy's own limits stand behind the checks below: a little more than a valid upload uses.
    limits: { fileSize: limits.fileBytes, files: Object.keys(FILE_PARTS).length + 1, fields: 2, parts: Object.keys(FILE_PARTS).length + 2, fieldSize: MAX_BODY_BYTES, fieldNameSize: 200, headerPairs: 20 },
  });
  for await (const part of parts) {
    // A part without a name has an undefined one.
    const name = typeof part.fieldname === 'string' ? part.fieldname : '';
    if (model === undefined) {
      if (name !== 'model') throw badRequest(`The multipart part 'model' must come first, before '${shown(name)}': ${EXPECTED}.`, 'model');
      const text = part.type === 'field' ? part.value : await readSmall(part.file, "multipart 'model' part");
      if (part.type === 'field' && part.valueTruncated) throw tooLarge(`The multipart 'model' part is larger than the server accepts (${MAX_BODY_BYTES / MiB} MiB).`);
      const value = typeof text === 'string' ? parseLenient(text, "multipart 'model' part", 'text') : text;
      model = bodyObject(value, "multipart 'model' part");
      checkModel(model);
      continue;
    }
    const what = FILE_PARTS[name];
    if (what === undefined || !Object.hasOwn(FILE_PARTS, name)) {
      throw badRequest(name === 'model' ? "The multipart part 'model' was sent twice; send it once." : `The multipart part '${shown(name)}' is not accepted here: ${EXPECTED}.`, shown(name));
    }
    if (files[name]) throw badRequest(`The multipart part '${name}' was sent twice; send ${what} once.`, name);
    if (part.type !== 'file') throw badRequest(`The multipart part '${name}' must be a file (${what}), not a text field.`, name);
    const path = await writePart(request, staging, part.file, name);
    if (part.file.truncated) throw tooLarge(`The file of the multipart part '${name}' is larger than the server accepts (${mib(limits.fileBytes)}).`);
    files[name] = { path, name: part.filename ?? '' };
  }
  if (model === undefined) throw badRequest(`The upload has no 'model' part: ${EXPECTED}.`, 'model');
  return { model, files };
}

/**
 * Stages one file part. Fails it when the client goes away, and when the whole body has arrived but
 * the part makes no progress (a body cut short inside a part may otherwise leave it open for ever).
 */
async function writePart(request: FastifyRequest, staging: Staging, file: NodeJS.ReadableStream & { destroyed?: boolean }, name: string): Promise<string> {
  const cut = () => badRequest(`The multipart body ends inside the part '${name}': send the whole part and the closing boundary.`);
  // The multipart reader may already have given up on this part (the body ended inside it).
  if (file.destroyed) throw cut();
  const socket = request.raw.socket;
  const stopper = new AbortController();
  const gone = () => stopper.abort(badRequest('The client went away before the upload arrived.'));
  let timer: NodeJS.Timeout | undefined;
  const watch = () => {
    let last = -1;
    timer = setInterval(() => {
      if (staging.written === last) stopper.abort(cut());
      last = staging.written;
    }, STALL_CHECK_MS);
    timer.unref();
  };
  if (request.raw.complete) watch();
  else request.raw.once('end', watch);
  socket?.once('close', gone);
  try {
    return await staging.write(file, stopper.signal);
  } catch (err) {
    throw stopper.signal.aborted ? stopper.signal.reason : err;
  } finally {
    clearInterval(timer);
    request.raw.removeListener('end', watch);
    socket?.removeListener('close', gone);
  }
}

/** Reads a small stream whole (a `model` sent as a file), refusing more than MAX_BODY_BYTES. */
async function readSmall(stream: AsyncIterable<Buffer>, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw tooLarge(`The ${what} is larger than the server accepts (${MAX_BODY_BYTES / MiB} MiB).`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** What went wrong while reading a multipart body, as the 4xx the client should see. */
function uploadError(err: unknown, limits: UploadLimits): unknown {
  if (err instanceof Problem) return err;
  const e = err as Error & { code?: string; statusCode?: number; part?: { fieldname?: string } };
  switch (e.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge(`The file of the multipart part '${shown(e.part?.fieldname ?? '')}' is larger than the server accepts (${mib(limits.fileBytes)}).`);
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return tooLarge(`The upload has more parts than the server accepts: ${EXPECTED}.`);
    case 'FST_PROTO_VIOLATION':
      return badRequest(`The upload has a part whose name is not accepted: ${EXPECTED}.`);
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return badRequest("The multipart 'model' part is declared as JSON but is not valid JSON.", 'model');
  }
  // System errors (the disk) are the server's; anything else comes from a malformed body.
  if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code) && e.code !== 'ECONNRESET') return err;
  return badRequest(`The multipart body is not valid: ${e.message ?? 'unreadable'}.`);
}

function mib(bytes: number): string {
  return `${Math.round((bytes / MiB) * 10) / 10} MiB`;
}

/** A file name the client gave, reduced to a safe name for a file of the application's folder. */
function safeFileName(name: string, fallback: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.]+/, '').slice(-100);
  return cleaned === '' ? fallback : cleaned;
}

function preferOf(request: FastifyRequest): string | undefined {
  return typeof request.headers.prefer === 'string' ? request.headers.prefer : undefined;
}

/** The declared length of a request body, when it has one. */
function declaredLength(request: FastifyRequest): number | undefined {
  const n = Number(request.headers['content-length']);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** How a deployment's progress object is waited for and shown: as every task of an operation is. */
export interface ProgressAnswers {
  /** Waits for the task as the `Prefer` header says (on the scheduler's clock); true when it completed. */
  settled(task: Task, prefer: string | undefined, signal?: AbortSignal): Promise<boolean>;
  /** The progress object as its job resource shows it. */
  render(task: Task, ctx: RenderContext): Record<string, unknown>;
}

export class DeployRequests {
  private readonly staging: StagingArea;

  constructor(
    private readonly domain: Domain,
    private readonly uploadDir: string,
    private readonly progress: ProgressAnswers,
    private readonly limits: UploadLimits = DEFAULT_UPLOAD_LIMITS,
  ) {
    this.staging = new StagingArea(uploadDir, limits.stagingBytes);
  }

  /** Bytes held by uploads in progress (for tests and figures). */
  get stagedBytes(): number {
    return this.staging.inUse;
  }

  async create(request: FastifyRequest, reply: FastifyReply, owner: BeanNode, ctx: RenderContext, session: string): Promise<FastifyReply> {
    if (!request.isMultipart()) return this.deploy(request, reply, owner, ctx, session, { model: bodyObject(request.body), files: {} });
    let staging: Staging | undefined;
    try {
      staging = this.staging.open(declaredLength(request));
      let upload: Upload;
      try {
        upload = await readUpload(request, staging, this.limits, (model) => {
          const problems = this.modelProblems(model);
          if (problems.length > 0) throw invalid(problems);
        });
      } catch (err) {
        throw uploadError(err, this.limits);
      }
      return await this.deploy(request, reply, owner, ctx, session, upload);
    } finally {
      staging?.remove();
    }
  }

  /** What is wrong with a deployment's model (its name, targets, a name already deployed). */
  private modelProblems(model: Record<string, unknown>): ProblemDetail[] {
    const { name, targets } = model;
    const problems: ProblemDetail[] = [];
    const nameIssue = nameProblem(name);
    if (nameIssue) problems.push({ path: 'name', detail: `The name of the application ${nameIssue}.` });
    const refs = targets === undefined ? [] : Array.isArray(targets) ? targets.map(parseReference) : [undefined];
    if (refs.some((r) => r === undefined)) problems.push({ path: 'targets', detail: 'The targets must be references such as [{"identity": ["servers", "AdminServer"]}].' });
    if (problems.length === 0 && this.domain.deployments.exists(String(name))) {
      problems.push({ path: 'name', detail: `An application named '${String(name)}' is already deployed.` });
    }
    return problems;
  }

  private async deploy(request: FastifyRequest, reply: FastifyReply, owner: BeanNode, ctx: RenderContext, session: string, upload: Upload): Promise<FastifyReply> {
    const { name, sourcePath, targets, planPath, ...properties } = upload.model;
    const problems = this.modelProblems(upload.model);
    const archive = upload.files.sourcePath;
    const source = archive ?? sourcePath;
    if (!archive && (typeof source !== 'string' || source === '')) {
      problems.push({ path: 'sourcePath', detail: "A deployment needs a 'sourcePath': a path on the server, or the archive as the multipart part 'sourcePath'." });
    }
    if (problems.length > 0) throw invalid(problems);
    const refs = targets === undefined ? [] : (targets as unknown[]).map(parseReference);
    const app = String(name);
    const stored = archive ? this.keep(app, archive, 'archive') : String(source);
    const plan = upload.files.deploymentPlan ? this.keep(app, upload.files.deploymentPlan, 'plan', stored) : planPath;
    const { identity, task } = await this.domain.deployments.deploy(request.principal.user, session, {
      name: app,
      sourcePath: stored,
      targets: refs as string[][],
      planPath: typeof plan === 'string' ? plan : undefined,
      finalState: 'STATE_ACTIVE',
      properties,
    });
    await this.domain.flush();
    const location = ctx.urls.href([...owner.root.base, ...identity]);
    if (!task || (await this.progress.settled(task, preferOf(request)))) return sendJson(reply, 201, {}, { location });
    return sendJson(reply, 202, this.progress.render(task, ctx), { location: this.taskHref(task, ctx) });
  }

  async remove(request: FastifyRequest, reply: FastifyReply, node: BeanNode, ctx: RenderContext, session: string): Promise<FastifyReply> {
    const name = node.identity[node.identity.length - 1]!;
    const task = await this.domain.deployments.undeploy(request.principal.user, session, name);
    await this.domain.flush();
    if (!task || (await this.progress.settled(task, preferOf(request)))) return sendJson(reply, 200, {});
    return sendJson(reply, 202, this.progress.render(task, ctx), { location: this.taskHref(task, ctx) });
  }

  private taskHref(task: Task, ctx: RenderContext): string {
    return ctx.urls.href(['domainRuntime', ...task.identity]);
  }

  /**
   * Moves a staged file to the application's own folder, under the client's file name made safe
   * (`fallback` when nothing of it is left, or when it would replace `other`). Returns its path.
   */
  private keep(app: string, staged: { path: string; name: string }, fallback: string, other?: string): string {
    // A leading dot is encoded too, so that no application folder is '.incoming' or hidden.
    const dir = join(this.uploadDir, encodeURIComponent(app).replace(/^\./, '%2E'));
    let target = join(dir, safeFileName(staged.name, fallback));
    if (target === other) target = join(dir, `${fallback}-${safeFileName(staged.name, fallback)}`);
    if (!isInside(this.uploadDir, dir) || !isInside(dir, target) || !isInside(this.staging.root, staged.path)) {
      throw badRequest(`The application name '${app}' or the file name '${staged.name}' does not make a path inside the upload folder.`);
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    renameSync(staged.path, target);
    return target;
  }
}
