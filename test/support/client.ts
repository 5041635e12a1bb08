// The project's typed client (`appserver-admin/client`, imported by its package name as users do),
// bound to a test server's administrator: for tests that prepare a domain rather than test the wire.
import { AppserverClient } from 'appserver-admin/client';

export const ADMIN = { user: 'admin', password: 'welcome1' };

/** A client of the server at `origin` (http://127.0.0.1:port) as `user` (default: the administrator). */
export function typedClient(origin: string, user = ADMIN.user, password = ADMIN.password): AppserverClient {
  return new AppserverClient({ url: origin, user, password, requestedBy: 'typed-client-tests' });
}
