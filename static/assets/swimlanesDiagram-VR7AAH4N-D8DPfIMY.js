import{r as e,t}from"./chunk-SHT3W25Y-BIGs4L5_.js";import"./chunk-POPQ4Y6H-CtyruCpd.js";import"./mermaid.core--YwAyLrp.js";import"./chunk-F27PBJKO-Cld4dhjb.js";import"./chunk-L3NEJ4N5-uzQc_mrt.js";import"./chunk-OSK3NFVY-BQ9wnnyI.js";import"./chunk-GVQU2GXP-BS3CW36v.js";import"./chunk-4HAMMTFA-PI_JrNnR.js";import"./chunk-P2QGCYS3-BXeBbRqO.js";import"./chunk-GMAD6QVW-BTNd5fI2.js";import"./chunk-PWAF6VOD-DDu0l8BH.js";import"./chunk-75Z2AOVW-DNEsJY94.js";import"./chunk-DU6HZSFF-CtHZDuYt.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};