/**
 * The operators' routes (ops/operations-routes.ts serves them): named here, apart from the routes,
 * because admission treats them specially (the metrics token) and must not import what it guards.
 */
export const HEALTH_PATH = '/health';
export const READY_PATH = '/ready';
export const METRICS_PATH = '/metrics';
