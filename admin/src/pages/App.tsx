import * as React from 'react';
import { Button, Flex } from '@strapi/design-system';
import { ArrowClockwise } from '@strapi/icons';
import { Layouts, Page, useRBAC } from '@strapi/strapi/admin';
import { DashboardMetrics } from '../components/DashboardMetrics';
import { AgentKeysSection } from '../components/AgentKeysSection';
import { DeliveriesTable } from '../components/DeliveriesTable';
import { DiscoveryDocumentsCard } from '../components/DiscoveryDocumentsCard';
import { GeoCharts } from '../components/GeoCharts';
import { IngestTable } from '../components/IngestTable';
import { InstancesAlert } from '../components/InstancesAlert';
import { ReadinessChecklist } from '../components/ReadinessChecklist';
import { RebuildOutcome } from '../components/RebuildOutcome';
import { RequestView } from '../components/RequestView';
import { SectionCard } from '../components/SectionCard';
import { SnapshotsTable } from '../components/SnapshotsTable';
import { useDashboardData } from '../hooks/useDashboardData';
import { useGeoMetrics } from '../hooks/useGeoMetrics';
import { useRebuild } from '../hooks/useRebuild';
import { useSnapshots } from '../hooks/useSnapshots';
import { useTranslate } from '../hooks/useTranslate';
import { useWebhookDeliveries } from '../hooks/useWebhookDeliveries';
import { PERMISSIONS } from '../permissions';

/** The plugin's own page: snapshots, rebuild, readiness, coverage, freshness, ingest, webhook deliveries (README › In the admin; README › Observability). */
function Dashboard() {
  const t = useTranslate();
  const { allowedActions } = useRBAC(PERMISSIONS.rebuild);
  const dashboard = useDashboardData();
  const snapshots = useSnapshots();
  const deliveries = useWebhookDeliveries();
  const geo = useGeoMetrics();
  const { reload: reloadDashboard } = dashboard;
  const { reload: reloadGeo } = geo;
  const { reload: reloadSnapshots } = snapshots;
  const { reload: reloadDeliveries } = deliveries;
  const reloadAll = React.useCallback(() => {
    reloadDashboard();
    reloadSnapshots();
    reloadDeliveries();
    reloadGeo();
  }, [reloadDashboard, reloadSnapshots, reloadDeliveries, reloadGeo]);
  const { state: rebuildState, rebuild } = useRebuild(reloadAll);
  const running = rebuildState.status === 'running';

  return (
    <>
      <Layouts.Header
        title={t('plugin.name')}
        subtitle={t('dashboard.subtitle')}
        primaryAction={
          allowedActions.canRebuild ? (
            <Button
              startIcon={<ArrowClockwise />}
              loading={running}
              disabled={running}
              onClick={() => void rebuild()}
            >
              {t('rebuild.button')}
            </Button>
          ) : null
        }
        secondaryAction={
          <Button variant="tertiary" onClick={reloadAll}>
            {t('dashboard.refresh')}
          </Button>
        }
      />
      <Layouts.Content>
        <Flex direction="column" alignItems="stretch" gap={6}>
          <RebuildOutcome state={rebuildState} />

          <RequestView request={dashboard} errorTitle={t('dashboard.loadError')}>
            {(data) => (
              <Flex direction="column" alignItems="stretch" gap={4}>
                <InstancesAlert instances={data.instances} />
                <DashboardMetrics data={data} />
              </Flex>
            )}
          </RequestView>

          <SectionCard title={t('readiness.title')} description={t('readiness.description')}>
            <RequestView request={dashboard} errorTitle={t('dashboard.loadError')}>
              {(data) => (
                <ReadinessChecklist
                  checks={data.readiness}
                  checkedAt={data.readinessCheckedAt}
                  computing={data.readinessComputing}
                  snapshot={data.readinessSnapshot}
                />
              )}
            </RequestView>
          </SectionCard>

          <SectionCard title={t('snapshots.title')} description={t('snapshots.description')}>
            <RequestView request={snapshots} errorTitle={t('snapshots.loadError')}>
              {(data) => <SnapshotsTable snapshots={data} />}
            </RequestView>
          </SectionCard>

          <SectionCard title={t('discovery.title')} description={t('discovery.description')}>
            <RequestView request={dashboard} errorTitle={t('dashboard.loadError')}>
              {(data) => <DiscoveryDocumentsCard documents={data.documents ?? []} />}
            </RequestView>
          </SectionCard>

          <SectionCard title={t('ingest.title')} description={t('ingest.description')}>
            <RequestView request={dashboard} errorTitle={t('dashboard.loadError')}>
              {(data) => <IngestTable rows={data.ingest} />}
            </RequestView>
          </SectionCard>

          <SectionCard
            title={t('geo.title')}
            description={t('geo.description', { days: geo.data?.windowDays ?? 30 })}
          >
            <RequestView request={geo} errorTitle={t('geo.loadError')}>
              {(data) => <GeoCharts metrics={data} />}
            </RequestView>
          </SectionCard>

          <AgentKeysSection />

          <SectionCard title={t('deliveries.title')} description={t('deliveries.description')}>
            <RequestView request={deliveries} errorTitle={t('deliveries.loadError')}>
              {(data) => <DeliveriesTable deliveries={data} />}
            </RequestView>
          </SectionCard>
        </Flex>
      </Layouts.Content>
    </>
  );
}

export default function App() {
  const t = useTranslate();
  return (
    <Page.Protect permissions={PERMISSIONS.readDashboard}>
      <Page.Main>
        <Page.Title>{t('dashboard.pageTitle')}</Page.Title>
        <Dashboard />
      </Page.Main>
    </Page.Protect>
  );
}
