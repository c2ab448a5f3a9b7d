// SPDX-License-Identifier: MIT
#include "ui/views/points/orbit_camera.h"

#include <QtMath>
#include <algorithm>
#include <cmath>

namespace cs::ui {
namespace {

float halfFovTan() {
    return std::tan(qDegreesToRadians(OrbitCamera::kFovY) * 0.5f);
}

}  // namespace

void OrbitCamera::setDistance(float d) {
    // Bounded relative to the scene so that zooming can neither pass through the target (the
    // orbit would degenerate) nor lose the data in the far distance.
    const float r = std::max(m_sceneRadius, 1e-6f);
    m_distance = std::clamp(d, r * 1e-4f, r * 1e4f);
}

void OrbitCamera::setAngles(float yawDegrees, float pitchDegrees) {
    m_yaw = std::remainder(yawDegrees, 360.0f);
    m_pitch = std::clamp(pitchDegrees, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::setScene(const QVector3D& centre, float radius) {
    m_sceneCentre = centre;
    m_sceneRadius = std::isfinite(radius) && radius > 0 ? radius : 1.0f;
    setDistance(m_distance);
}

QVector3D OrbitCamera::eye() const {
    return m_target - forward() * m_distance;
}

QVector3D OrbitCamera::forward() const {
    const float yaw = qDegreesToRadians(m_yaw);
    const float pitch = qDegreesToRadians(m_pitch);
    // The eye sits at (sin yaw, sin pitch, cos yaw) from the target; forward points back.
    return -QVector3D(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                      std::cos(pitch) * std::cos(yaw));
}

QVector3D OrbitCamera::right() const {
    return QVector3D::crossProduct(forward(), QVector3D(0, 1, 0)).normalized();
}

QVector3D OrbitCamera::up() const {
    return QVector3D::crossProduct(right(), forward());
}

QMatrix4x4 OrbitCamera::view() const {
    QMatrix4x4 m;
    m.lookAt(eye(), m_target, up());
    return m;
}

QMatrix4x4 OrbitCamera::projection(float aspect) const {
    // Near and far hug the scene's bounding sphere, wherever panning took the target, so that
    // depth precision is spent where the points are.
    const float r = std::max(m_sceneRadius, 1e-6f) * 1.01f;
    const float toCentre = (m_sceneCentre - eye()).length();
    const float farPlane = toCentre + r;
    const float nearPlane = std::max(toCentre - r, farPlane * 1e-4f);
    QMatrix4x4 m;
    m.perspective(kFovY, std::max(aspect, 1e-3f), nearPlane, farPlane);
    return m;
}

void OrbitCamera::orbit(float dYaw, float dPitch) {
    setAngles(m_yaw + dYaw, m_pitch + dPitch);
}

void OrbitCamera::pan(float dx, float dy, float viewportHeight) {
    const float worldPerPixel = 2.0f * m_distance * halfFovTan() / std::max(viewportHeight, 1.0f);
    m_target += (-right() * dx + up() * dy) * worldPerPixel;
}

void OrbitCamera::zoom(float factor, QPointF ndc, float aspect) {
    const float before = m_distance;
    setDistance(m_distance * factor);
    const float applied = m_distance / before;
    // The world point under the cursor on the target's plane; scaling the target towards it by
    // the same factor as the distance keeps it under the cursor.
    const float halfH = before * halfFovTan();
    const QVector3D anchor =
        m_target + right() * float(ndc.x()) * halfH * aspect + up() * float(ndc.y()) * halfH;
    m_target = anchor + (m_target - anchor) * applied;
}

void OrbitCamera::fit(const QVector3D& centre, float radius, float aspect) {
    setScene(centre, radius);
    m_target = centre;
    const float r = std::max(radius, 1e-6f);
    // The narrower of the two fields of view decides; 5 % margin around the sphere.
    const float halfV = qDegreesToRadians(kFovY) * 0.5f;
    const float halfH = std::atan(std::tan(halfV) * std::max(aspect, 1e-3f));
    const float half = std::min(halfV, halfH);
    setDistance(1.05f * r / std::sin(half));
}

void OrbitCamera::fitBox(const QVector3D& lo, const QVector3D& hi, float aspect) {
    const QVector3D centre = (lo + hi) / 2;
    const float radius = (hi - lo).length() / 2;
    // The sphere bounds the clip planes and zoom; a degenerate box (one point) gets a scale.
    fit(centre, radius > 0 ? radius : std::max(1.0f, centre.length() * 0.1f), aspect);
    if (!(radius > 0)) return;
    // Each corner at depth z behind the target must lie inside the frustum: its offset across
    // the view is at most (distance + z) * tan(half fov).
    const float tanV = halfFovTan();
    const float tanH = tanV * std::max(aspect, 1e-3f);
    float needed = 0.0f;
    for (int corner = 0; corner < 8; ++corner) {
        const QVector3D p(corner & 1 ? hi.x() : lo.x(), corner & 2 ? hi.y() : lo.y(),
                          corner & 4 ? hi.z() : lo.z());
        const QVector3D o = p - centre;
        const float x = std::abs(QVector3D::dotProduct(o, right()));
        const float y = std::abs(QVector3D::dotProduct(o, up()));
        const float z = QVector3D::dotProduct(o, forward());
        needed = std::max({needed, x / tanH - z, y / tanV - z, -z + radius * 0.05f});
    }
    // 8 % margin so that points at the edge keep their whole sprite on screen.
    setDistance(needed * 1.08f);
}

void OrbitCamera::reset(const QVector3D& lo, const QVector3D& hi, float aspect, bool planar) {
    if (planar)
        setAngles(0.0f, 0.0f);
    else
        setAngles(kDefaultYaw, kDefaultPitch);
    fitBox(lo, hi, aspect);
}

}  // namespace cs::ui
