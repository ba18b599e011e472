import{r as e,t}from"./chunk-SHT3W25Y-BEw1IReW.js";import"./chunk-POPQ4Y6H-BGzkOOro.js";import"./mermaid.core-ChgoV0D_.js";import"./chunk-F27PBJKO-nuDoDmTk.js";import"./chunk-L3NEJ4N5-B1Ofhpft.js";import"./chunk-OSK3NFVY-BZrpa6j2.js";import"./chunk-GVQU2GXP-BG26mKZO.js";import"./chunk-4HAMMTFA-CrSL3wcz.js";import"./chunk-P2QGCYS3-B6CLhkUH.js";import"./chunk-GMAD6QVW-D-ZDnyFx.js";import"./chunk-PWAF6VOD-B7hjBISi.js";import"./chunk-75Z2AOVW-Bl7qsFQ4.js";import"./chunk-DU6HZSFF-DuJl6DNT.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};