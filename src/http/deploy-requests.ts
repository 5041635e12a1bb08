// Application and library uploads: `POST edit/appDeployments` or `edit/libraries` as a multipart
// body (a `model` part first, then the archive as the part `sourcePath` and optionally a
// `deploymentPlan` part), read part by part for the management API, which deploys. Uploads are staged in a folder of their own (see
// staging.ts) that is removed when the request ends, whatever happened.
import { Problem, badRequest, tooLarge } from '../core/problems.js';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type UploadReader, bodyObject } from '../api/management-api.js';
import { MAX_BODY_BYTES, parseLenient } from './body.js';
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
const FILE_PARTS: Record<string, string> = { sourcePath: 'the archive', deploymentPlan: 'the deployment plan' };
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
      // The multipart reader refuses part names that every object has, without saying which one.
      return badRequest(`The upload has a part named after a property every object has ('__proto__', 'constructor', 'toString'...), which is not accepted: ${EXPECTED}.`);
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

/** The declared length of a request body, when it has one. */
function declaredLength(request: FastifyRequest): number | undefined {
  const n = Number(request.headers['content-length']);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** One upload in progress: a reader for the API, and the end that removes its staging. */
export interface UploadInProgress {
  read: UploadReader;
  /** Removes what was staged and not moved (always called when the request ends). */
  end(): void;
}

/** Application uploads: staged in folders of their own, moved to the application's folder when kept. */
export class Uploads {
  private readonly staging: StagingArea;

  constructor(
    private readonly uploadDir: string,
    private readonly limits: UploadLimits = DEFAULT_UPLOAD_LIMITS,
  ) {
    this.staging = new StagingArea(uploadDir, limits.stagingBytes);
  }

  /** Bytes held by uploads in progress (for tests and figures). */
  get stagedBytes(): number {
    return this.staging.inUse;
  }

  /** Begins reading a multipart deployment of `request`; `end` must follow, whatever happens. */
  begin(request: FastifyRequest): UploadInProgress {
    let staging: Staging | undefined;
    return {
      read: async (check) => {
        // An upload is at most its model, an archive and a plan, with the multipart framing.
        staging = this.staging.open(declaredLength(request), 2 * this.limits.fileBytes + MAX_BODY_BYTES + 64 * 1024);
        let upload: Upload;
        try {
          upload = await readUpload(request, staging, this.limits, check);
        } catch (err) {
          throw uploadError(err, this.limits);
        }
        const files = upload.files;
        return {
          model: upload.model,
          store: (app) => {
            const archive = files.sourcePath ? this.keep(app, files.sourcePath, 'archive') : undefined;
            const plan = files.deploymentPlan ? this.keep(app, files.deploymentPlan, 'plan', archive) : undefined;
            return { ...(archive ? { archive } : {}), ...(plan ? { plan } : {}) };
          },
        };
      },
      end: () => staging?.remove(),
    };
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
