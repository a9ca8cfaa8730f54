import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../../shared/constants';
import type services from '../services';

type Services = typeof services;
export type ServiceName = keyof Services;
export type ServiceOf<N extends ServiceName> = ReturnType<Services[N]>;

/** The plugin's services, typed by name. */
export function getService<N extends ServiceName>(strapi: Core.Strapi, name: N): ServiceOf<N> {
  return strapi.plugin(PLUGIN_ID).service(name) as ServiceOf<N>;
}
