// Absolute hrefs built from the request, so links stay right behind a proxy.

export interface Link {
  rel: string;
  href: string;
  title?: string;
}

export class Urls {
  /**
   * `origin` is scheme://host[:port]; `root` is the path of the version root
   * (…/management/appserver/latest), or of a version list when `top` (nothing is above it).
   */
  constructor(
    readonly origin: string,
    readonly root: string,
    private readonly top = false,
  ) {}

  /** href of a resource given its URL segments below the version root. */
  href(path: readonly string[]): string {
    let out = this.origin + this.root;
    for (const seg of path) out += `/${encodeURIComponent(seg)}`;
    return out;
  }

  /** href of the parent of the version root (the version list); none above a version list. */
  versionsHref(): string | undefined {
    return this.top ? undefined : this.origin + this.root.slice(0, this.root.lastIndexOf('/'));
  }
}
