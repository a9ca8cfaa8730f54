import { Checkbox, Flex, Typography } from '@strapi/design-system';
import type { AiCrawler } from '../../../shared/contracts/admin';
import { useTranslate, type MessageKey } from '../hooks/useTranslate';
import { ToggleField } from './fields/ToggleField';

interface CrawlerChecklistProps {
  /** Form name of the list, e.g. `discovery.agents`; each checkbox is `<name>.<token>`. */
  name: string;
  crawlers: AiCrawler[];
  /** The chosen tokens; `null` means every crawler the plugin knows. */
  value: string[] | null;
  onChange: (value: string[] | null) => void;
  error?: string;
  disabled?: boolean;
}

const ROLES: { role: AiCrawler['role']; title: MessageKey; hint: MessageKey }[] = [
  {
    role: 'training',
    title: 'settings.discovery.training',
    hint: 'settings.discovery.trainingHint',
  },
  {
    role: 'assistant',
    title: 'settings.discovery.assistant',
    hint: 'settings.discovery.assistantHint',
  },
];

/**
 * Which AI crawlers the robots.txt block names: every known one (also those a later version
 * adds), or a chosen few, grouped by what they follow (`train` or `infer`).
 */
export function CrawlerChecklist({
  name,
  crawlers,
  value,
  onChange,
  error,
  disabled,
}: CrawlerChecklistProps) {
  const t = useTranslate();
  const all = value === null;
  const chosen = new Set(value ?? crawlers.map((c) => c.token));
  const toggle = (token: string, checked: boolean) => {
    // Kept in the server's order, so robots.txt and the saved list read the same way.
    const next = crawlers
      .map((c) => c.token)
      .filter((other) => (other === token ? checked : chosen.has(other)));
    // A chosen token the server does not list is kept (the server names it in its 400).
    const unknown = [...chosen].filter((other) => !crawlers.some((c) => c.token === other));
    onChange([...next, ...unknown]);
  };

  return (
    <Flex direction="column" alignItems="stretch" gap={3}>
      <ToggleField
        name={`${name}.all`}
        label={t('settings.discovery.allAgents')}
        hint={t('settings.discovery.allAgentsHint')}
        checked={all}
        onChange={(checked) => onChange(checked ? null : crawlers.map((c) => c.token))}
        disabled={disabled}
      />
      {ROLES.map(({ role, title, hint }) => {
        const group = crawlers.filter((c) => c.role === role);
        if (group.length === 0) return null;
        return (
          <Flex
            key={role}
            direction="column"
            alignItems="stretch"
            gap={2}
            role="group"
            aria-label={t(title)}
          >
            <Flex direction="column" alignItems="stretch" gap={1}>
              <Typography variant="omega" fontWeight="bold">
                {t(title)}
              </Typography>
              <Typography variant="pi" textColor="neutral600">
                {t(hint)}
              </Typography>
            </Flex>
            <Flex wrap="wrap" gap={4}>
              {group.map((crawler) => (
                <Checkbox
                  key={crawler.token}
                  name={`${name}.${crawler.token}`}
                  checked={chosen.has(crawler.token)}
                  onCheckedChange={(checked) => toggle(crawler.token, checked === true)}
                  disabled={disabled || all}
                >
                  {t('settings.discovery.crawler', {
                    token: crawler.token,
                    operator: crawler.operator,
                  })}
                </Checkbox>
              ))}
            </Flex>
          </Flex>
        );
      })}
      {error ? (
        <Typography variant="pi" textColor="danger600" role="alert">
          {error}
        </Typography>
      ) : null}
    </Flex>
  );
}
