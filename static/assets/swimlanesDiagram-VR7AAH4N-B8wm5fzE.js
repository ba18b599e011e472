import{r as e,t}from"./chunk-SHT3W25Y-Cfae4t1L.js";import"./chunk-POPQ4Y6H-B1rumBlz.js";import"./mermaid.core-qQ-QMRp-.js";import"./chunk-F27PBJKO-CsV28FMu.js";import"./chunk-L3NEJ4N5-uc6WSnvn.js";import"./chunk-OSK3NFVY-CxkHerVH.js";import"./chunk-GVQU2GXP-CzTtGniS.js";import"./chunk-4HAMMTFA-BDc9XHvn.js";import"./chunk-P2QGCYS3-JHxPomia.js";import"./chunk-GMAD6QVW-BX4BVFZF.js";import"./chunk-PWAF6VOD-BMH-a3PI.js";import"./chunk-75Z2AOVW-Bd0VOZ_u.js";import"./chunk-DU6HZSFF-2G1xH7b_.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};