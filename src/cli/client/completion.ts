// Shell completion: a bash script (zsh runs it with bashcompinit) that completes command names
// itself and asks `appserver-admin __complete <command> <word>` for bean paths, which reads the
// children and items of the path's parent from the server with the user's usual connection
// settings (environment or configuration file).
import type { AppserverClient } from '../../client/index.js';

export const TREES = ['edit', 'serverConfig', 'domainConfig', 'serverRuntime', 'domainRuntime'];
/** Links that lead nowhere below a bean. */
const NOT_CHILDREN = new Set(['self', 'canonical', 'parent', 'action', 'create-form', 'create', 'current', 'job', 'search']);

export function completionScript(commands: readonly string[]): string {
  return `# appserver-admin completion for bash (and zsh with bashcompinit):
#   eval "$(appserver-admin completion bash)"
# Bean paths are completed from the server named by APPSERVER_URL or the configuration file.
_appserver_admin_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${[...commands, 'serve', 'init', 'export'].join(' ')}" -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
    get|set|create|delete|invoke|describe|search|start|stop)
      if [ "$COMP_CWORD" -eq 2 ]; then
        local IFS=$'\\n'
        COMPREPLY=( $("\${COMP_WORDS[0]}" __complete "\${COMP_WORDS[1]}" "$cur" 2>/dev/null) )
        if [ "\${#COMPREPLY[@]}" -eq 1 ] && [ "\${COMPREPLY[0]%/}" != "\${COMPREPLY[0]}" ]; then
          type compopt >/dev/null 2>&1 && compopt -o nospace
        fi
      elif [ "$COMP_CWORD" -eq 3 ] && [ "\${COMP_WORDS[1]}" = invoke ]; then
        local IFS=$'\\n'
        COMPREPLY=( $("\${COMP_WORDS[0]}" __complete action "$cur" "\${COMP_WORDS[2]}" 2>/dev/null) )
      fi
      ;;
  esac
}
complete -F _appserver_admin_complete appserver-admin
`;
}

const SAFE = (n: string) => !/[\u0000-\u001f\u007f]/.test(n);

/** Candidates for `word` as an argument of `command` (`action`: an action of the bean at `path`). */
export async function completions(client: AppserverClient, command: string, word: string, path?: string): Promise<string[]> {
  if (command === 'action') {
    if (path === undefined || path === '') return [];
    const body = (await client.get(path)) as { links?: { rel: string; title?: string }[] };
    const actions = (body.links ?? []).filter((l) => l.rel === 'action' && typeof l.title === 'string').map((l) => l.title!);
    return [...new Set(actions)].filter((a) => a.startsWith(word) && SAFE(a)).sort();
  }
  if ((command === 'start' || command === 'stop') && !word.includes('/')) {
    const servers = await client.list('domainRuntime/serverLifeCycleRuntimes', { fields: ['name'], links: [] });
    return servers.map((s) => String(s.name)).filter((n) => n.startsWith(word) && !/[\u0000-\u001f\u007f]/.test(n)).sort();
  }
  if (command === 'search' && !word.includes('/')) return TREES.filter((t) => t.startsWith(word));
  const cut = word.lastIndexOf('/');
  if (cut < 0) return TREES.filter((t) => t.startsWith(word)).map((t) => `${t}/`);
  const parent = word.slice(0, cut);
  const prefix = word.slice(cut + 1);
  const body = (await client.get(parent)) as { items?: { name?: unknown; links?: { rel: string }[] }[]; links?: { rel: string; href: string }[] };
  const names = Array.isArray(body.items)
    ? body.items.map((i) => String(i.name ?? ''))
    : (body.links ?? []).filter((l) => !NOT_CHILDREN.has(l.rel) && l.href.startsWith(client.url(parent) + '/')).map((l) => l.rel);
  // A name with a control character (a newline would split it in two) is not offered.
  return [...new Set(names)].filter((n) => n !== '' && n.startsWith(prefix) && !/[\u0000-\u001f\u007f]/.test(n)).sort().map((n) => `${parent}/${n}/`);
}
