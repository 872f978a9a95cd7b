import {
  InterceptingCall,
  ListenerBuilder,
  RequesterBuilder,
  type Interceptor,
  type StatusObject,
} from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, type ConnectionOptions } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  /** {@link temporalDataConverter} (payload encryption): required, so no client of ours writes plaintext. */
  dataConverter: DataConverter;
}

/**
 * The SDK's retry of failed calls (same decider, same backoff), except that a retry whose timer fires after the
 * connection was closed answers with the last failure instead of creating a call on the closed channel: the
 * SDK's own interceptor does that inside its timer, which throws "Channel has been shut down" where nothing can
 * catch it (the process's uncaught exception; seen in whole-suite runs when a call retried across a close).
 */
export function closeAwareRetryInterceptor(isClosed: () => boolean): Interceptor {
  const retryOptions = defaultGrpcRetryOptions();
  return (options, nextCall) => {
    let savedSendMessage: unknown;
    let savedReceiveMessage: unknown;
    let savedMessageNext: ((message: unknown) => void) | undefined;
    const requester = new RequesterBuilder()
      .withStart((metadata, _listener, next) => {
        let attempt = 1;
        const listener = new ListenerBuilder()
          .withOnReceiveMessage((message, nextMessage) => {
            savedReceiveMessage = message;
            savedMessageNext = nextMessage;
          })
          .withOnReceiveStatus((firstStatus, nextStatus) => {
            const finish = (status: StatusObject) => {
              savedMessageNext?.(savedReceiveMessage);
              nextStatus(status);
            };
            const onReceiveStatus = (status: StatusObject) => {
              if (isClosed() || !retryOptions.retryableDecider(attempt, status)) return finish(status);
              setTimeout(
                () => {
                  if (isClosed()) return finish(status);
                  attempt++;
                  const call = nextCall(options);
                  call.start(metadata, {
                    onReceiveMessage(message) {
                      savedReceiveMessage = message;
                    },
                    onReceiveStatus,
                  });
                  call.sendMessage(savedSendMessage);
                  call.halfClose();
                },
                retryOptions.delayFunction(attempt, status),
              );
            };
            onReceiveStatus(firstStatus);
          })
          .build();
        next(metadata, listener);
      })
      .withSendMessage((message, next) => {
        savedSendMessage = message;
        next(message);
      })
      .build();
    return new InterceptingCall(nextCall(options), requester);
  };
}

/** `Connection.connect` with {@link closeAwareRetryInterceptor}: every client connection of ours is made here. */
export async function connectTemporal(options: ConnectionOptions): Promise<Connection> {
  let closed = false;
  const connection = await Connection.connect({ ...options, interceptors: [closeAwareRetryInterceptor(() => closed)] });
  const close = connection.close.bind(connection);
  connection.close = () => {
    closed = true;
    return close();
  };
  return connection;
}

export async function connectTemporalClient(settings: TemporalSettings): Promise<Client> {
  const connection = await connectTemporal({ address: settings.address });
  return new Client({ connection, namespace: settings.namespace, dataConverter: settings.dataConverter });
}
