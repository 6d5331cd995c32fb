// Where this server is reached, as the caller addressed it: links in issued invitations and resets point here.
import type { FastifyRequest } from 'fastify';

export function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
