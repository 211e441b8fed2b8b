package delivery

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metric results of one attempt (label "result" of outreachd_delivery_attempts_total).
const (
	resultSuccess = "success" // 2xx
	resultRetry   = "retry"   // failed, another attempt is scheduled
	resultFailed  = "failed"  // failed, the delivery is finished (budget spent or 410)
	resultTest    = "test"    // a Test-button send, whatever its outcome
)

// metrics are the hub's Prometheus series. Every name is listed in dashboards/, and a test of two
// processes (checkDashboardMetrics) checks that each name there is exported.
type metrics struct {
	attempts      *prometheus.CounterVec   // event_kind, destination_kind, result
	outcomes      *prometheus.CounterVec   // event_kind, destination_kind, outcome (succeeded|failed)
	duration      *prometheus.HistogramVec // destination_kind
	lag           prometheus.Histogram
	queueDepth    *prometheus.GaugeVec // state: due|pending
	oldestPending prometheus.Gauge
	failing       *prometheus.GaugeVec // destination_kind
	inFlight      *prometheus.GaugeVec // budget: first|retry
}

// newMetrics registers the hub's series on reg. The fan-out's totals are the store's counters
// (the fan-out runs in the business transactions, Store.FanoutCounts): they count what
// this process committed.
func newMetrics(reg prometheus.Registerer, fanout func() FanoutCounts) (*metrics, error) {
	counterVec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	gaugeVec := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	m := &metrics{
		attempts: counterVec("outreachd_delivery_attempts_total",
			"Delivery attempts by event kind, destination kind and result (success, retry, failed, test).",
			"event_kind", "destination_kind", "result"),
		outcomes: counterVec("outreachd_delivery_outcomes_total",
			"Finished deliveries by event kind, destination kind and outcome (succeeded, failed).",
			"event_kind", "destination_kind", "outcome"),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "outreachd_delivery_attempt_duration_seconds",
			Help:    "Duration of one delivery attempt, by destination kind.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"destination_kind"}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "outreachd_delivery_lag_seconds",
			Help:    "From the commit of an event to a destination's 2xx receipt of it.",
			Buckets: []float64{.005, .01, .025, .05, .075, .1, .15, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200},
		}),
		queueDepth: gaugeVec("outreachd_delivery_queue_depth",
			"Pending deliveries: state=pending all of them (waiting, leased or due), state=due those due now.", "state"),
		oldestPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "outreachd_delivery_oldest_pending_age_seconds",
			Help: "How long the longest-waiting due delivery has been past its due time (0 when none is due).",
		}),
		failing: gaugeVec("outreachd_delivery_destinations_failing",
			"Enabled destinations whose latest attempts failed (consecutive_failures > 0), by kind.", "destination_kind"),
		inFlight: gaugeVec("outreachd_delivery_in_flight",
			"Attempts in flight in this process, by budget (first, retry).", "budget"),
	}
	counter := func(name, help string, f func(FanoutCounts) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(f(fanout())) })
	}
	for _, c := range []prometheus.Collector{m.attempts, m.outcomes, m.duration, m.lag, m.queueDepth, m.oldestPending, m.failing, m.inFlight,
		counter("outreachd_delivery_fanout_events_total", "Events committed by this process (each fanned out in its own transaction).",
			func(c FanoutCounts) int64 { return c.Events }),
		counter("outreachd_delivery_fanout_deliveries_total", "Deliveries created by this process's commits (one per event and matching destination).",
			func(c FanoutCounts) int64 { return c.Created }),
		counter("outreachd_delivery_fanout_collapsed_total", "Deliveries not created because an identical payload went to the same destination within 24 h.",
			func(c FanoutCounts) int64 { return c.Collapsed }),
		counter("outreachd_delivery_fanout_filtered_total", "Deliveries not created because the destination's filter did not match the event (of a kind it selected).",
			func(c FanoutCounts) int64 { return c.Filtered }),
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	// Series that dashboards read exist from the start, not only after the first event.
	for _, s := range []string{"due", "pending"} {
		m.queueDepth.WithLabelValues(s)
	}
	for _, k := range []string{"https", "slack"} {
		m.failing.WithLabelValues(k)
		m.duration.WithLabelValues(k)
	}
	for _, b := range []string{"first", "retry"} {
		m.inFlight.WithLabelValues(b)
	}
	return m, nil
}
