import * as React from 'react';
import { Flex, Loader } from '@strapi/design-system';
import type { AdminGet } from '../hooks/useAdminGet';
import { useTranslate } from '../hooks/useTranslate';
import { RequestErrorState } from './RequestErrorState';

interface RequestViewProps<T> {
  request: AdminGet<T>;
  /** Shown in the error state, e.g. "Could not load the snapshots". */
  errorTitle: string;
  children: (data: T) => React.ReactNode;
}

/** Loading, error (with retry) or the answer of one request. */
export function RequestView<T>({ request, errorTitle, children }: RequestViewProps<T>) {
  const t = useTranslate();
  if (request.status === 'error' && request.error) {
    return <RequestErrorState title={errorTitle} error={request.error} onRetry={request.reload} />;
  }
  if (request.data === undefined) {
    return (
      <Flex justifyContent="center" padding={4}>
        <Loader small>{t('loading')}</Loader>
      </Flex>
    );
  }
  return <>{children(request.data)}</>;
}
