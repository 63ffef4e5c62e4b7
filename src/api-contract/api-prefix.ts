/** Where our own API's routes begin (apart from schemas.ts, which loads typebox: see http/api-v1/lazy-api-v1.ts). */
export const API_PREFIX = '/api/v1';
