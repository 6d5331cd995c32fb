// Where this server is reached: links in issued invitations and resets point here. With
// QUIRE_PUBLIC_URL set, that address; otherwise the one the caller used, which the caller's own
// Host header decides (an invitation mailed from a request with a forged Host would link elsewhere).
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

export function baseUrl(request: FastifyRequest, config: Pick<Config, 'publicUrl'>): string {
  return config.publicUrl ?? `${request.protocol}://${request.host}`;
}
