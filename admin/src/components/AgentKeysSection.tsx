import * as React from 'react';
import {
  Alert,
  Badge,
  Button,
  Flex,
  Grid,
  Table,
  Tbody,
  Td,
  Th,
  Thead,
  Tr,
  Typography,
} from '@strapi/design-system';
import { useFetchClient, useRBAC } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import type { AgentKeyIssued, AgentKeySummary } from '../../../shared/contracts/admin';
import { useAdminGet } from '../hooks/useAdminGet';
import { useTranslate } from '../hooks/useTranslate';
import { PERMISSIONS } from '../permissions';
import { PLUGIN_ID } from '../pluginId';
import { toRequestError } from '../utils/request-error';
import { NumberField } from './fields/NumberField';
import { TextField } from './fields/TextField';
import { RequestView } from './RequestView';
import { SectionCard } from './SectionCard';

/**
 * Registered agents (docs/protocol.md §7.2): the site owner issues API keys for partners' agents
 * (each with a label and, if wanted, its own limit), sees each new key once, and revokes them.
 */
export function AgentKeysSection() {
  const t = useTranslate();
  const { formatDate } = useIntl();
  const { post } = useFetchClient();
  const read = useRBAC(PERMISSIONS.readSettings);
  const update = useRBAC(PERMISSIONS.updateSettings);
  const canRead = read.allowedActions.canRead === true;
  const canUpdate = update.allowedActions.canUpdate === true;
  const keys = useAdminGet<AgentKeySummary[]>(canRead ? `/${PLUGIN_ID}/agents/keys` : null);
  const [label, setLabel] = React.useState('');
  const [rateMax, setRateMax] = React.useState<number | undefined>(undefined);
  const [issued, setIssued] = React.useState<AgentKeyIssued | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  const [busy, setBusy] = React.useState(false);
  // Remounts the form after a key is issued: the number input keeps its text otherwise.
  const [formKey, setFormKey] = React.useState(0);
  const { reload } = keys;

  if (!canRead) return null;

  const issue = async () => {
    setBusy(true);
    setError(null);
    try {
      const response = await post<{ data: AgentKeyIssued }>(`/${PLUGIN_ID}/agents/keys`, {
        label,
        rateMax: rateMax ?? null,
      });
      setIssued(response.data.data);
      setLabel('');
      setRateMax(undefined);
      setFormKey((k) => k + 1);
      reload();
    } catch (caught) {
      setError(toRequestError(caught).message);
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (id: number) => {
    setError(null);
    try {
      await post(`/${PLUGIN_ID}/agents/keys/${id}/revoke`, {});
      reload();
    } catch (caught) {
      setError(toRequestError(caught).message);
    }
  };

  return (
    <SectionCard title={t('agents.title')} description={t('agents.description')}>
      {issued ? (
        <Alert
          variant="success"
          title={t('agents.issuedTitle', { label: issued.agent.label })}
          onClose={() => setIssued(null)}
          closeLabel={t('agents.dismiss')}
        >
          <Flex direction="column" alignItems="stretch" gap={1}>
            <Typography variant="pi">{t('agents.issuedHint')}</Typography>
            <Typography variant="omega" fontWeight="bold" tag="code" data-testid="agent-key">
              {issued.key}
            </Typography>
          </Flex>
        </Alert>
      ) : null}
      {error ? (
        <Alert
          variant="danger"
          title={t('agents.error')}
          onClose={() => setError(null)}
          closeLabel={t('agents.dismiss')}
        >
          {error}
        </Alert>
      ) : null}
      {canUpdate ? (
        <Grid.Root gap={4} key={formKey}>
          <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
            <TextField
              name="agentKey.label"
              label={t('agents.label')}
              hint={t('agents.labelHint')}
              value={label}
              onChange={setLabel}
            />
          </Grid.Item>
          <Grid.Item col={4} s={12} direction="column" alignItems="stretch">
            <NumberField
              name="agentKey.rateMax"
              label={t('agents.rateMax')}
              hint={t('agents.rateMaxHint')}
              value={rateMax}
              onChange={setRateMax}
            />
          </Grid.Item>
          <Grid.Item col={2} s={12} direction="column" alignItems="stretch">
            <Button
              onClick={() => void issue()}
              loading={busy}
              disabled={busy || label.trim() === ''}
            >
              {t('agents.issue')}
            </Button>
          </Grid.Item>
        </Grid.Root>
      ) : null}
      <RequestView request={keys} errorTitle={t('agents.loadError')}>
        {(list) =>
          list.length === 0 ? (
            <Typography variant="pi" textColor="neutral600">
              {t('agents.empty')}
            </Typography>
          ) : (
            <Table colCount={5} rowCount={list.length + 1}>
              <Thead>
                <Tr>
                  <Th>
                    <Typography variant="sigma">{t('agents.label')}</Typography>
                  </Th>
                  <Th>
                    <Typography variant="sigma">{t('agents.key')}</Typography>
                  </Th>
                  <Th>
                    <Typography variant="sigma">{t('agents.rateMax')}</Typography>
                  </Th>
                  <Th>
                    <Typography variant="sigma">{t('agents.issuedAt')}</Typography>
                  </Th>
                  <Th>
                    <Typography variant="sigma">{t('agents.status')}</Typography>
                  </Th>
                </Tr>
              </Thead>
              <Tbody>
                {list.map((agent) => (
                  <Tr key={agent.id}>
                    <Td>
                      <Typography fontWeight="bold">{agent.label}</Typography>
                    </Td>
                    <Td>
                      <Typography tag="code">{agent.prefix}…</Typography>
                    </Td>
                    <Td>
                      <Typography>{agent.rateMax ?? t('agents.rateDefault')}</Typography>
                    </Td>
                    <Td>
                      <Typography>{formatDate(agent.issuedAt, { dateStyle: 'medium' })}</Typography>
                    </Td>
                    <Td>
                      {agent.revokedAt ? (
                        <Badge>{t('agents.revoked')}</Badge>
                      ) : canUpdate ? (
                        <Button
                          variant="danger-light"
                          size="S"
                          onClick={() => void revoke(agent.id)}
                        >
                          {t('agents.revoke', { label: agent.label })}
                        </Button>
                      ) : (
                        <Badge active>{t('agents.active')}</Badge>
                      )}
                    </Td>
                  </Tr>
                ))}
              </Tbody>
            </Table>
          )
        }
      </RequestView>
    </SectionCard>
  );
}
