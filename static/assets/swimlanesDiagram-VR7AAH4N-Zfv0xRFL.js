import{r as e,t}from"./chunk-SHT3W25Y-YHvU4-jZ.js";import"./chunk-POPQ4Y6H-BS-YfqS_.js";import"./mermaid.core-a7PnTg9z.js";import"./chunk-F27PBJKO-BXtNoRPi.js";import"./chunk-L3NEJ4N5-DoSK9FqT.js";import"./chunk-OSK3NFVY-CsHkmzux.js";import"./chunk-GVQU2GXP-MNbLFtu3.js";import"./chunk-4HAMMTFA-Ch_CT3Dq.js";import"./chunk-P2QGCYS3-5resSFu-.js";import"./chunk-GMAD6QVW-B6FTa8sd.js";import"./chunk-PWAF6VOD-DEaYdyF0.js";import"./chunk-75Z2AOVW-BpdEskTm.js";import"./chunk-DU6HZSFF-BNR04ggB.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};