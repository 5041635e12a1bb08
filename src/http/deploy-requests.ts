// Application deployments through the edit tree: `POST edit/appDeployments` with JSON naming a
// source path on the server, or a multipart upload (a `model` part plus the archive), and
// `DELETE edit/appDeployments/{name}`. Both honour `Prefer` like the lifecycle operations.
import { createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { settled, waitSeconds } from '../actions/task-reply.js';
import { identityOf } from '../config/coerce.js';
import { nameProblem } from '../config/validate.js';
import type { Domain } from '../domain/domain.js';
import type { RenderContext } from '../render/entity.js';
import type { Task } from '../runtime/tasks.js';
import type { BeanNode } from '../tree/resolve.js';
import { bodyObject, parseLenient } from './body.js';
import { invalid } from './errors.js';
import { sendJson } from './send.js';

interface Upload {
  model: Record<string, unknown>;
  files: Record<string, string>;
}

/** Reads a multipart deployment: the `model` part (relaxed JSON) and the archive parts, saved under `dir`. */
async function readUpload(request: FastifyRequest, uploadDir: string): Promise<Upload> {
  let model: Record<string, unknown> = {};
  // Keyed by the parts' field names, which the client chooses.
  const files = Object.create(null) as Record<string, string>;
  const staged: { field: string; name: string; path: string }[] = [];
  const incoming = join(uploadDir, '.incoming', `${Date.now()}-${Math.random().toString(36).slice(2)}`);
  for await (const part of request.parts()) {
    if (part.type === 'field') {
      if (part.fieldname === 'model') model = bodyObject(parseLenient(String(part.value), "multipart 'model' part"), "multipart 'model' part");
      continue;
    }
    // Archives are readable by this account only, like the rest of the data directory.
    mkdirSync(incoming, { recursive: true, mode: 0o700 });
    const file = basename(part.filename || part.fieldname);
    const path = join(incoming, `${part.fieldname}-${file}`);
    await pipeline(part.file, createWriteStream(path, { mode: 0o600 }));
    staged.push({ field: part.fieldname, name: file, path });
  }
  for (const s of staged) files[s.field] = s.path;
  return { model, files };
}

function settle(task: Task, prefer: string | undefined): Promise<boolean> {
  return settled(task, waitSeconds(prefer));
}

export class DeployRequests {
  constructor(
    private readonly domain: Domain,
    private readonly uploadDir: string,
    /** Renders a progress object as its job resource. */
    private readonly renderTask: (task: Task, ctx: RenderContext) => Record<string, unknown>,
  ) {}

  async create(request: FastifyRequest, reply: FastifyReply, owner: BeanNode, ctx: RenderContext, session: string): Promise<FastifyReply> {
    const upload = request.isMultipart() ? await readUpload(request, this.uploadDir) : { model: bodyObject(request.body), files: {} };
    const { name, sourcePath, targets, planPath, ...properties } = upload.model;
    const problems: { path: string; detail: string }[] = [];
    const nameIssue = nameProblem(name);
    if (nameIssue) problems.push({ path: 'name', detail: `The name of the application ${nameIssue}.` });
    const archive = upload.files.sourcePath;
    const source = archive ?? sourcePath;
    if (typeof source !== 'string' || source === '') problems.push({ path: 'sourcePath', detail: "A deployment needs a 'sourcePath': a path on the server, or the archive as the multipart part 'sourcePath'." });
    const refs = targets === undefined ? [] : Array.isArray(targets) ? targets.map(identityOf) : [undefined];
    if (refs.some((r) => r === undefined)) problems.push({ path: 'targets', detail: 'The targets must be references such as [{"identity": ["servers", "AdminServer"]}].' });
    if (problems.length === 0 && this.domain.deployments.exists(String(name))) {
      problems.push({ path: 'name', detail: `An application named '${String(name)}' is already deployed.` });
    }
    if (problems.length > 0) {
      this.discard(upload.files);
      throw invalid(problems);
    }
    const stored = archive ? this.keep(String(name), archive) : String(source);
    const plan = upload.files.deploymentPlan ? this.keep(String(name), upload.files.deploymentPlan) : planPath;
    const { identity, task } = await this.domain.deployments.deploy(request.principal.user, session, {
      name: String(name),
      sourcePath: stored,
      targets: refs as string[][],
      planPath: typeof plan === 'string' ? plan : undefined,
      finalState: 'STATE_ACTIVE',
      properties,
    });
    await this.domain.flush();
    const location = ctx.urls.href([...owner.root.base, ...identity]);
    if (!task || (await settle(task, request.headers.prefer as string | undefined))) return sendJson(reply, 201, {}, { location });
    return sendJson(reply, 202, this.renderTask(task, ctx), { location: this.taskHref(task, ctx) });
  }

  async remove(request: FastifyRequest, reply: FastifyReply, node: BeanNode, ctx: RenderContext, session: string): Promise<FastifyReply> {
    const name = node.identity[node.identity.length - 1]!;
    const task = await this.domain.deployments.undeploy(request.principal.user, session, name);
    await this.domain.flush();
    if (!task || (await settle(task, request.headers.prefer as string | undefined))) return sendJson(reply, 200, {});
    return sendJson(reply, 202, this.renderTask(task, ctx), { location: this.taskHref(task, ctx) });
  }

  private taskHref(task: Task, ctx: RenderContext): string {
    return ctx.urls.href(['domainRuntime', ...task.identity]);
  }

  /** Removes the staged files of a refused upload. */
  private discard(files: Record<string, string>): void {
    for (const path of Object.values(files)) rmSync(dirname(path), { recursive: true, force: true });
  }

  /** Moves an uploaded file to the application's own folder. */
  private keep(app: string, staged: string): string {
    const dir = join(this.uploadDir, encodeURIComponent(app));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const target = join(dir, basename(staged).replace(/^[^-]+-/, ''));
    renameSync(staged, target);
    rmSync(dirname(staged), { recursive: true, force: true });
    return target;
  }
}
