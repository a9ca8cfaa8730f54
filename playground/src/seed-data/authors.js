'use strict';

/** Seed authors (api::author.author, no draft & publish). `email` is private. */

const MARKERS = require('./markers');

const authors = () => [
  {
    key: 'jana',
    data: {
      name: 'Jana Nováková',
      orcid: '0000-0002-1825-0097',
      email: MARKERS.AUTHOR_EMAIL,
      bio: 'Information architect. Writes about structured content, licensing and how AI agents read the web.',
    },
  },
  {
    key: 'peter',
    data: {
      name: 'Peter Horváth',
      orcid: '0000-0003-4012-8730',
      email: 'peter.horvath@example.org',
      bio: 'Site reliability engineer. Measures crawler traffic and keeps the manifest fast.',
    },
  },
];

module.exports = { authors };
