import { Accordion, Box, Flex, Typography, VisuallyHidden } from '@strapi/design-system';
import { Check, EyeStriked, Pencil, Sparkle } from '@strapi/icons';
import type { FragmentPreview, MetadataOverride } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { FRAGMENT_STATE_LABELS as STATE_LABELS, FRAGMENT_TYPE_LABELS } from '../utils/labels';
import { FragmentStateBadge } from './FragmentStateBadge';
import { MetadataFields, type InheritedPolicy } from './MetadataFields';

const STATE_ICONS = { new: Sparkle, changed: Pencil, unchanged: Check } as const;
const STATE_COLORS = { new: 'success600', changed: 'warning600', unchanged: 'neutral500' } as const;

interface FragmentItemProps {
  fragment: FragmentPreview;
  override: MetadataOverride;
  onChange: (override: MetadataOverride) => void;
  inherited: InheritedPolicy;
  licenses: { uri: string; label: string }[];
  /** What the server refused on the last save, keyed below this fragment. */
  serverErrors: Record<string, string>;
  disabled?: boolean;
}

/** One fragment of the entry, expandable to its per-fragment overrides (`sitemapAi.fragments[<id>]`). */
export function FragmentItem({
  fragment,
  override,
  onChange,
  inherited,
  licenses,
  serverErrors,
  disabled,
}: FragmentItemProps) {
  const t = useTranslate();
  const overridden = Object.keys(override).length > 0;
  const excluded = fragment.excluded === true || override.exclude === true;
  // The small accordion shows an icon, not a description: the icon says the state, the hidden text says it all.
  const summary = [
    t(STATE_LABELS[fragment.state]),
    t(FRAGMENT_TYPE_LABELS[fragment.type]),
    overridden ? t('fragment.overridden') : null,
    excluded ? t('fragment.excluded') : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const title = fragment.title || fragment.key;
  const icon = excluded ? EyeStriked : STATE_ICONS[fragment.state];

  return (
    <Accordion.Item value={fragment.id}>
      <Accordion.Header>
        <Accordion.Trigger
          icon={icon}
          iconProps={{ fill: excluded ? 'neutral500' : STATE_COLORS[fragment.state] }}
          title={`${title} (${summary})`}
        >
          {title}
          <VisuallyHidden> ({summary})</VisuallyHidden>
        </Accordion.Trigger>
      </Accordion.Header>
      <Accordion.Content>
        <Box padding={3}>
          <Flex direction="column" alignItems="stretch" gap={3}>
            <Flex gap={2} wrap="wrap">
              <FragmentStateBadge state={fragment.state} />
              <Typography variant="pi" textColor="neutral600">
                {t(FRAGMENT_TYPE_LABELS[fragment.type])}
              </Typography>
              <Typography variant="pi" textColor="neutral600">
                {fragment.published
                  ? t('fragment.published', { version: fragment.published.version })
                  : t('fragment.unpublished')}
              </Typography>
            </Flex>
            <Flex direction="column" alignItems="stretch" gap={1}>
              <Typography variant="pi" textColor="neutral600">
                {t('fragment.id')}
              </Typography>
              <Typography variant="pi" fontWeight="bold" style={{ wordBreak: 'break-all' }}>
                {fragment.id}
              </Typography>
            </Flex>
            <MetadataFields
              name={`sitemapAi.fragments.${fragment.id}`}
              value={override}
              onChange={onChange}
              inherited={inherited}
              licenses={licenses}
              withExclude
              serverErrors={serverErrors}
              disabled={disabled}
            />
          </Flex>
        </Box>
      </Accordion.Content>
    </Accordion.Item>
  );
}
