import * as React from 'react';
import {
  Accordion,
  Box,
  Checkbox,
  Divider,
  Field,
  Flex,
  Loader,
  Textarea,
  Typography,
} from '@strapi/design-system';
import { useForm } from '@strapi/strapi/admin';
import type {
  EntryMetadata,
  EntryPanelData,
  MetadataOverride,
  UsageKind,
} from '../../../shared/contracts/admin';
import { USAGE_KINDS } from '../../../shared/constants';
import { useTranslate } from '../hooks/useTranslate';
import {
  cleanEntryMetadata,
  errorAt,
  errorsBelow,
  flattenFormErrors,
  isRecordedReason,
  readEntryMetadata,
  validateOverride,
} from '../utils/metadata';
import type { RequestError } from '../utils/request-error';
import { FragmentItem } from './FragmentItem';
import { MetadataFields, type InheritedPolicy } from './MetadataFields';
import { RequestErrorState } from './RequestErrorState';

/** The entry's JSON attribute the plugin adds to every enabled content type (server METADATA_ATTRIBUTE). */
const ATTRIBUTE = 'sitemapAi';

interface EntryPanelProps {
  /** The entry has no saved draft in this locale yet: no fragments to show. */
  unsaved: boolean;
  /** The attribute as stored (the panel's `document` prop): the form's initial values never hold non-visible attributes. */
  stored: unknown;
  data: EntryPanelData | undefined;
  loading: boolean;
  error: RequestError | undefined;
  onRetry: () => void;
  /** Read-only: the published tab, or a user without `fields.edit`. */
  readOnly: boolean;
}

function entryInherited(data: EntryPanelData | undefined): InheritedPolicy {
  if (!data) return { license: null, usage: {} };
  return {
    license: { value: data.inherited.license, source: data.inherited.sources.license },
    usage: Object.fromEntries(
      USAGE_KINDS.map((kind) => [
        kind,
        { value: data.inherited.usage[kind], source: data.inherited.sources.usage[kind] },
      ]),
    ),
  };
}

/** What a fragment inherits: the entry's own values first, then what the entry inherits. */
function fragmentInherited(entry: MetadataOverride, inherited: InheritedPolicy): InheritedPolicy {
  const usage: InheritedPolicy['usage'] = { ...inherited.usage };
  for (const kind of USAGE_KINDS) {
    const own = entry.usage?.[kind as UsageKind];
    if (own) usage[kind] = { value: own, source: 'entry' };
  }
  return {
    license: entry.license ? { value: entry.license, source: 'entry' } : inherited.license,
    usage,
  };
}

/**
 * The side panel's content (README › In the admin): entry-level values, the reason for the
 * change, then the entry's fragments with per-fragment overrides. Everything
 * is written to the entry's `sitemapAi` attribute through the edit view's form,
 * so it saves with the document and follows draft → publish and locales.
 */
export function EntryPanel({
  unsaved,
  stored,
  data,
  loading,
  error,
  onRetry,
  readOnly,
}: EntryPanelProps) {
  const t = useTranslate();
  const formValue = useForm(
    'SitemapAiPanel',
    (state) => (state.values as Record<string, unknown>)[ATTRIBUTE],
  );
  const onFormChange = useForm('SitemapAiPanel', (state) => state.onChange);
  const formDisabled = useForm('SitemapAiPanel', (state) => state.disabled);
  const formErrors = useForm(
    'SitemapAiPanel',
    (state) => (state.errors as Record<string, unknown>)[ATTRIBUTE],
  );
  const disabled = readOnly || formDisabled;

  // Until the editor changes something, the form has no value: the stored one applies.
  const metadata = React.useMemo(
    () => readEntryMetadata(formValue !== undefined ? formValue : stored),
    [formValue, stored],
  );
  const update = (next: EntryMetadata) => onFormChange(ATTRIBUTE, cleanEntryMetadata(next));

  const { sensitive, reason, fragments: fragmentOverrides, ...entryOverride } = metadata;
  const inherited = entryInherited(data);
  const forFragments = fragmentInherited(entryOverride, inherited);
  const licenses = data?.licenses ?? [];
  const fragments = (data?.fragments ?? []).filter((fragment) => fragment.type !== 'article');

  // What the server refused on the last Save / Publish (the Content Manager keeps it in the form's errors).
  const serverErrors = React.useMemo(() => flattenFormErrors(formErrors), [formErrors]);
  const serverErrorList = Object.entries(serverErrors);

  // The stored reason stays in the entry after publishing: say when it would not be used again.
  const reasonRecorded = isRecordedReason(reason, data?.lastRecordedReason);

  const invalid =
    Object.keys(validateOverride(entryOverride)).length > 0 ||
    Object.values(fragmentOverrides ?? {}).some(
      (override) => Object.keys(validateOverride(override)).length > 0,
    );

  return (
    <Flex direction="column" alignItems="stretch" gap={4} width="100%">
      {serverErrorList.length > 0 ? (
        <Box padding={3} hasRadius background="danger100" borderColor="danger200" role="alert">
          <Typography variant="pi" fontWeight="bold" textColor="danger700">
            {t('panel.refused')}
          </Typography>
          <ul>
            {serverErrorList.map(([key, message]) => (
              <li key={key}>
                <Typography variant="pi" textColor="danger700">
                  {key}: {message}
                </Typography>
              </li>
            ))}
          </ul>
        </Box>
      ) : null}
      {invalid ? (
        <Box padding={3} hasRadius background="warning100" borderColor="warning200" role="status">
          <Typography variant="pi" textColor="warning700">
            {t('panel.invalid')}
          </Typography>
        </Box>
      ) : null}
      {loading && !data ? (
        <Flex justifyContent="center" padding={2}>
          <Loader small>{t('panel.loading')}</Loader>
        </Flex>
      ) : null}
      {error ? (
        <RequestErrorState title={t('panel.loadError')} error={error} onRetry={onRetry} />
      ) : null}
      {data?.sensitive ? (
        <Box padding={3} hasRadius background="neutral100" borderColor="neutral200" role="status">
          <Typography variant="pi">{t('panel.sensitive')}</Typography>
        </Box>
      ) : null}
      {data?.problems && data.problems.length > 0 ? (
        <Box padding={3} hasRadius background="warning100" borderColor="warning200" role="status">
          <Typography variant="pi" fontWeight="bold" textColor="warning700">
            {t('panel.problems')}
          </Typography>
          <ul>
            {data.problems.map((problem) => (
              <li key={`${problem.key}:${problem.message}`}>
                <Typography variant="pi" textColor="warning700">
                  {problem.key}: {problem.message}
                </Typography>
              </li>
            ))}
          </ul>
        </Box>
      ) : null}

      <Checkbox
        name={`${ATTRIBUTE}.sensitive`}
        checked={sensitive === true}
        onCheckedChange={(checked) =>
          update({ ...metadata, sensitive: checked === true ? true : undefined })
        }
        disabled={disabled}
      >
        {t('fields.sensitive')}
      </Checkbox>

      <MetadataFields
        name={ATTRIBUTE}
        value={entryOverride}
        onChange={(next) => update({ ...metadata, ...next })}
        inherited={inherited}
        licenses={licenses}
        serverErrors={serverErrors}
        disabled={disabled}
      />

      <Field.Root
        name={`${ATTRIBUTE}.reason`}
        hint={t('fields.reasonHint')}
        error={errorAt(serverErrors, 'reason')}
      >
        <Field.Label>{t('fields.reason')}</Field.Label>
        <Textarea
          value={reason ?? ''}
          onChange={(event: React.ChangeEvent<HTMLTextAreaElement>) =>
            update({ ...metadata, reason: event.target.value })
          }
          disabled={disabled}
        />
        <Field.Error />
        <Field.Hint />
        {reasonRecorded ? (
          <Typography variant="pi" textColor="warning700" role="status">
            {t('fields.reasonRecorded')}
          </Typography>
        ) : null}
      </Field.Root>

      <Divider />

      <Flex direction="column" alignItems="stretch" gap={2}>
        <Typography variant="sigma" textColor="neutral600" tag="h3">
          {t('fragments.title')}
        </Typography>
        {unsaved ? (
          <Typography variant="pi" textColor="neutral600">
            {t('fragments.saveFirst')}
          </Typography>
        ) : null}
        {data ? (
          <Typography variant="pi" textColor="neutral600">
            {data.publishedVersion
              ? t('fragments.publishedVersion', { version: data.publishedVersion })
              : t('fragments.notPublished')}
          </Typography>
        ) : null}
        {data && fragments.length === 0 ? (
          <Typography variant="pi" textColor="neutral600">
            {t('fragments.empty')}
          </Typography>
        ) : null}
        {fragments.length > 0 ? (
          <Accordion.Root size="S">
            {fragments.map((fragment) => (
              <FragmentItem
                key={fragment.id}
                fragment={fragment}
                override={fragmentOverrides?.[fragment.id] ?? {}}
                onChange={(override) =>
                  update({
                    ...metadata,
                    fragments: { ...fragmentOverrides, [fragment.id]: override },
                  })
                }
                inherited={forFragments}
                licenses={licenses}
                serverErrors={errorsBelow(serverErrors, `fragments.${fragment.id}`)}
                disabled={disabled}
              />
            ))}
          </Accordion.Root>
        ) : null}
        {data && data.removed.length > 0 ? (
          <Box paddingTop={2}>
            <Typography variant="pi" fontWeight="bold">
              {t('fragments.removed')}
            </Typography>
            <ul>
              {data.removed.map((removed) => (
                <li key={removed.id}>
                  <Typography variant="pi" textColor="neutral600">
                    {removed.title || removed.id}
                  </Typography>
                </li>
              ))}
            </ul>
          </Box>
        ) : null}
      </Flex>
    </Flex>
  );
}
