import { factories } from '@strapi/strapi';

export default factories.createCoreService('api::article.article');
