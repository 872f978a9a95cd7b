/** Every workflow the worker runs, one file each. */
export * from './health-probe';
export * from './pricing-refresh';
export * from './launch-instance';
export * from './webhook-delivery';
export * from './webhook-dispatcher';
