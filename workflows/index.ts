/** Every workflow the worker runs, one file each. */
export * from './health-probe';
export * from './pricing-refresh';
export * from './launch-instance';
export * from './reconcile-instances';
export * from './alert-monitor';
export * from './schedule-run';
export * from './balance-depletion';
export * from './webhook-delivery';
export * from './webhook-dispatcher';
export * from './observe-instances';
export * from './job';
